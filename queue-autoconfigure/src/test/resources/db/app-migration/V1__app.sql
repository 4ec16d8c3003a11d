CREATE TABLE app_table (
    id   bigint PRIMARY KEY,
    name text   NOT NULL
);
