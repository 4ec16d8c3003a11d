CREATE TABLE IF NOT EXISTS users (
    address text PRIMARY KEY
);

CREATE TABLE IF NOT EXISTS orders (
    id text PRIMARY KEY
);
