-- TaskQueue schema, version 15: cancelling a running task (TaskQueueOperations.cancel). The cancel deletes the task's
-- row, as it does a waiting one, so that its handler's fenced completion finds nothing and rolls back: no new
-- column on taskqueue_task, nothing more for the claim or the completion to read. What the instance running it must
-- learn waits here, one row per task cancelled while claimed, until that instance has ended the attempt (or its
-- session is gone): it reads its session's rows with every heartbeat, and a NOTIFY wakes it at once where the
-- database has LISTEN/NOTIFY. Empty unless a running task is being cancelled.
CREATE TABLE taskqueue_cancel_request (
    task_id      uuid        PRIMARY KEY,
    -- The session that held the task's claim when it was cancelled, and that claim's attempt.
    session_id   uuid        NOT NULL,
    attempt      integer     NOT NULL,
    -- Who asked, as the caller named it (the endpoint and the dashboard name the principal); NULL when unnamed.
    requested_by text,
    requested_at timestamptz NOT NULL DEFAULT now()
);

-- The heartbeat's read of its own session's requests.
CREATE INDEX taskqueue_cancel_request_session_idx ON taskqueue_cancel_request (session_id);

-- The history (taskqueue.history.enabled) keeps cancelled tasks too, with who asked. A column with a constant
-- default and a nullable one change only the catalog: no row is rewritten.
ALTER TABLE taskqueue_history ADD COLUMN IF NOT EXISTS outcome text NOT NULL DEFAULT 'completed';
ALTER TABLE taskqueue_history ADD COLUMN IF NOT EXISTS cancelled_by text;
