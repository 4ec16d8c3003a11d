-- What the test handlers write, in their tasks' transactions.
CREATE TABLE IF NOT EXISTS written (
    task_id uuid NOT NULL,
    text    text NOT NULL
);
