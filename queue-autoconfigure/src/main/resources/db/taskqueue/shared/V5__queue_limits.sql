-- TaskQueue schema, version 5: cluster-wide limits per queue (taskqueue.queues.<name>.global-concurrency and
-- .rate-limit.*). A claim of a limited queue locks the queue's row in taskqueue_queue, so that the claims of that
-- queue take turns across instances; the row also counts the task starts of the queue's current rate window.
-- Queues without limits never touch these columns.

-- Nullable columns and a constant default: catalogue changes only, existing rows are not rewritten.
-- The start of the fixed rate window whose starts window_starts counts, on the database clock; NULL before the first.
ALTER TABLE taskqueue_queue ADD COLUMN window_start timestamptz;

-- How many tasks of the queue were claimed in the window that begins at window_start.
ALTER TABLE taskqueue_queue ADD COLUMN window_starts integer NOT NULL DEFAULT 0;
