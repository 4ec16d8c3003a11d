-- TaskQueue schema, version 1, for CockroachDB (docs/distributed-sql.md): the tables, columns and index names of
-- db/taskqueue/V1, with hash-sharded keys where PostgreSQL's are ordered by time. Applied by TaskQueue's own Flyway
-- (history table taskqueue_schema_history) unless taskqueue.schema.migrate=false; then apply this file yourself.

-- One row per live application instance. Liveness is judged on the database clock only.
CREATE TABLE taskqueue_session (
    id           uuid        PRIMARY KEY,
    name         text        NOT NULL,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- Waiting and running tasks. A row is deleted when its task completes, so the table stays small.
-- claimed_by is the session running the task; NULL while it waits.
-- The ids are UUID v7, ordered by time: a plain primary key would send every insert to the last range of the
-- table. Hash-sharded, inserts spread over 16 ranges and a lookup by id still reads one (the shard is a function
-- of the id). fillfactor is accepted and ignored by CockroachDB, so it is left out.
CREATE TABLE taskqueue_task (
    id          uuid        NOT NULL,
    queue       text        NOT NULL,
    payload     jsonb       NOT NULL,
    priority    integer     NOT NULL DEFAULT 0,
    run_at      timestamptz NOT NULL DEFAULT now(),
    enqueued_at timestamptz NOT NULL DEFAULT now(),
    attempt     integer     NOT NULL DEFAULT 0,
    claimed_by  uuid,
    claimed_at  timestamptz,
    last_error  text,
    CONSTRAINT taskqueue_task_pkey PRIMARY KEY (id) USING HASH WITH (bucket_count = 16)
);

-- Serves exactly the claim: ready rows of one queue, highest priority first, then oldest run_at. Hash-sharded on the
-- claim order (16 buckets, the shard column crdb_internal_queue_priority_run_at_id_shard_16): new tasks, due now,
-- land in 16 ranges instead of the last one, and claimers can take a bucket each; a claim over all buckets reads
-- the first rows of each and merges them.
CREATE INDEX taskqueue_task_ready_idx ON taskqueue_task (queue, priority DESC, run_at, id)
    USING HASH WITH (bucket_count = 16)
    WHERE claimed_by IS NULL;

-- Finds a session's tasks when it ends or expires.
CREATE INDEX taskqueue_task_claimed_idx ON taskqueue_task (claimed_by)
    WHERE claimed_by IS NOT NULL;

-- Tasks that will not be tried again, with the error that ended them and their original payload.
-- Hash-sharded primary key, as for taskqueue_task.
CREATE TABLE taskqueue_dead_task (
    id          uuid        NOT NULL,
    queue       text        NOT NULL,
    payload     jsonb       NOT NULL,
    priority    integer     NOT NULL,
    attempts    integer     NOT NULL,
    enqueued_at timestamptz NOT NULL,
    failed_at   timestamptz NOT NULL DEFAULT now(),
    error       text        NOT NULL,
    CONSTRAINT taskqueue_dead_task_pkey PRIMARY KEY (id) USING HASH WITH (bucket_count = 16)
);

CREATE INDEX taskqueue_dead_task_queue_idx ON taskqueue_dead_task (queue, failed_at);
