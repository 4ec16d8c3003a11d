-- TaskQueue schema, version 1. Applied by TaskQueue's own Flyway (history table taskqueue_schema_history)
-- unless taskqueue.schema.migrate=false; then apply this file yourself, in the schema named by
-- taskqueue.schema.name (or the connection's current schema).

-- One row per live application instance. Liveness is judged on the database clock only.
CREATE TABLE taskqueue_session (
    id           uuid        PRIMARY KEY,
    name         text        NOT NULL,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- Waiting and running tasks. A row is deleted when its task completes, so the table stays small.
-- claimed_by is the session running the task; NULL while it waits.
CREATE TABLE taskqueue_task (
    id          uuid        PRIMARY KEY,
    queue       text        NOT NULL,
    payload     jsonb       NOT NULL,
    priority    integer     NOT NULL DEFAULT 0,
    run_at      timestamptz NOT NULL DEFAULT now(),
    enqueued_at timestamptz NOT NULL DEFAULT now(),
    attempt     integer     NOT NULL DEFAULT 0,
    claimed_by  uuid,
    claimed_at  timestamptz,
    last_error  text
) WITH (fillfactor = 80);

-- Serves exactly the claim: ready rows of one queue, highest priority first, then oldest run_at.
CREATE INDEX taskqueue_task_ready_idx ON taskqueue_task (queue, priority DESC, run_at, id)
    WHERE claimed_by IS NULL;

-- Finds a session's tasks when it ends or expires.
CREATE INDEX taskqueue_task_claimed_idx ON taskqueue_task (claimed_by)
    WHERE claimed_by IS NOT NULL;

-- Tasks that will not be tried again, with the error that ended them and their original payload.
CREATE TABLE taskqueue_dead_task (
    id          uuid        PRIMARY KEY,
    queue       text        NOT NULL,
    payload     jsonb       NOT NULL,
    priority    integer     NOT NULL,
    attempts    integer     NOT NULL,
    enqueued_at timestamptz NOT NULL,
    failed_at   timestamptz NOT NULL DEFAULT now(),
    error       text        NOT NULL
);

CREATE INDEX taskqueue_dead_task_queue_idx ON taskqueue_dead_task (queue, failed_at);
