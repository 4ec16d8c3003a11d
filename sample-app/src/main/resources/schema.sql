-- The sample's own table, created at startup by spring.sql.init (TaskQueue creates its tables itself).
CREATE TABLE IF NOT EXISTS signup (
    id              uuid        PRIMARY KEY,
    email           text        NOT NULL UNIQUE,
    signed_up_at    timestamptz NOT NULL DEFAULT now(),
    welcome_sent_at timestamptz
);
