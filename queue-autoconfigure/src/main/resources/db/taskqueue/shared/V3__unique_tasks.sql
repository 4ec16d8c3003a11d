-- TaskQueue schema, version 3: unique tasks. A task may carry a key unique in its queue (TaskRequest.withUniqueKey);
-- enqueueing another task with a key that a task holds adds nothing (KEEP) or updates the task that has not started
-- yet (REPLACE). Completed and dead tasks live in other tables, so they never hold a key.

-- A nullable column and a constant default: catalogue changes only, existing rows are not rewritten.
ALTER TABLE taskqueue_task ADD COLUMN unique_key text;

-- Whether the task holds its key while it runs and waits to retry too (enqueued with KEEP), not only until it starts.
ALTER TABLE taskqueue_task ADD COLUMN unique_running boolean NOT NULL DEFAULT false;

-- At most one unstarted task per queue and key: the one REPLACE updates. The claim makes attempt 1, which takes a
-- task out of this index for good, so that a REPLACE can add a task while the old one runs.
CREATE UNIQUE INDEX taskqueue_task_unique_waiting_idx ON taskqueue_task (queue, unique_key)
    WHERE unique_key IS NOT NULL AND attempt = 0;

-- At most one task enqueued with KEEP per queue and key, in any state.
CREATE UNIQUE INDEX taskqueue_task_unique_running_idx ON taskqueue_task (queue, unique_key)
    WHERE unique_key IS NOT NULL AND unique_running;

-- Finds the task that holds a key, in any state, to return its id.
CREATE INDEX taskqueue_task_unique_key_idx ON taskqueue_task (queue, unique_key)
    WHERE unique_key IS NOT NULL;
