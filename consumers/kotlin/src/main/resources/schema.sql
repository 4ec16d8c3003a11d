CREATE TABLE IF NOT EXISTS report (
    id      BIGINT PRIMARY KEY,
    pages   INT    NOT NULL,
    attempt INT    NOT NULL
);
