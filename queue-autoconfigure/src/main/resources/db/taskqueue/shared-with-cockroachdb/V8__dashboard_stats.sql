-- TaskQueue schema, version 8: what the dashboard's charts read. Each instance adds the attempts it completed and
-- failed, per queue and minute of the database clock, every few seconds with one upsert (not one per task), and
-- deletes the minutes older than a few hours. The table holds a few hundred rows per queue at most, so the charts of
-- the last hour never read the task tables.
CREATE TABLE taskqueue_queue_minute (
    queue     text        NOT NULL,
    minute    timestamptz NOT NULL,
    completed bigint      NOT NULL DEFAULT 0,
    failed    bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (queue, minute)
);

-- Pruning deletes the old minutes of every queue.
CREATE INDEX taskqueue_queue_minute_minute_idx ON taskqueue_queue_minute (minute);
