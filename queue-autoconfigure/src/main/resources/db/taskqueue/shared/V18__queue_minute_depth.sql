-- TaskQueue schema, version 18: the dashboard's trends. Besides the attempts completed and failed, each minute of
-- a queue keeps how many of its tasks were ready and how long the oldest of them had waited (in seconds), as an
-- instance sampled them once that minute; when several instances sample the same minute, the highest figures stay.
-- Nullable columns without a default: catalogue changes only, no row is rewritten; a minute nobody sampled has none.
ALTER TABLE taskqueue_queue_minute ADD COLUMN IF NOT EXISTS ready bigint;

ALTER TABLE taskqueue_queue_minute ADD COLUMN IF NOT EXISTS oldest_ready_seconds bigint;
