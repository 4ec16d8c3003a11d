package com.example.signup;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

@Repository
class Users {

    private final JdbcClient jdbc;

    Users(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(String address) {
        this.jdbc.sql("INSERT INTO users (address) VALUES (?)").param(address).update();
    }

    int count() {
        return this.jdbc.sql("SELECT count(*) FROM users").query(Integer.class).single();
    }

}
