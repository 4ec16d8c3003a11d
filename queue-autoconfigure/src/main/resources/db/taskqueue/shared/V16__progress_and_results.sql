-- TaskQueue schema, version 16: progress and results of tasks (TaskContext.progress, TaskContext.result).
-- Both live in tables of their own, not in taskqueue_task or taskqueue_history: a handler that reports no progress
-- and returns nothing writes neither, so its claim, completion and history statements stay as they were, and the
-- updates of a progress report, once a second per running task, leave their dead rows in a small table that
-- autovacuum clears quickly rather than in the hot task table.

-- The last progress of each running task that reported one, written by its worker at most once per
-- taskqueue.progress.write-interval and deleted once its attempt ends; the retention pruner deletes the rows of
-- tasks whose worker died. attempt tells a row left by an earlier attempt from the running one's.
CREATE TABLE taskqueue_progress (
    id         uuid        PRIMARY KEY,
    attempt    integer     NOT NULL,
    percent    smallint    NOT NULL,
    message    text,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- The result of each completed task that gave one, as JSON, inserted by the statement that completes it, in its
-- transaction, and deleted after taskqueue.retention.history like the history rows, whether the history is on or not.
CREATE TABLE taskqueue_result (
    id           uuid        PRIMARY KEY,
    queue        text        NOT NULL,
    -- The batch of the task (TaskQueue.enqueueBatch), so that the batch's "then" task can read its parts' results.
    batch_id     uuid,
    result       jsonb       NOT NULL,
    completed_at timestamptz NOT NULL DEFAULT now()
);

-- The retention pruner's order.
CREATE INDEX taskqueue_result_completed_idx ON taskqueue_result (completed_at);

-- The results of a batch's tasks. Partial: a task outside any batch costs this index nothing.
CREATE INDEX taskqueue_result_batch_idx ON taskqueue_result (batch_id) WHERE batch_id IS NOT NULL;
