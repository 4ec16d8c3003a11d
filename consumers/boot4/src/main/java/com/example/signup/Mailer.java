package com.example.signup;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.stereotype.Component;

/**
 * Stands in for a mail client: remembers what it sent, so the tests can see that a handler ran.
 */
@Component
class Mailer {

    private final List<String> sent = new CopyOnWriteArrayList<>();

    void send(String address, String subject) {
        this.sent.add(address + ": " + subject);
    }

    List<String> sent() {
        return List.copyOf(this.sent);
    }

}
