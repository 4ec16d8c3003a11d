-- TaskQueue schema, version 7: fan-out topics and task batches.

-- Which queues get a task when a topic is published (TaskQueue.publish). Written when an instance starts, from the
-- topics of its @TaskHandler methods: the handler of a queue owns the queue's rows, so a publish reaches the queue
-- even while no instance of the subscribing service runs.
CREATE TABLE taskqueue_topic_subscription (
    topic         text        NOT NULL,
    queue         text        NOT NULL,
    subscribed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (topic, queue)
);

-- The tasks of a batch carry its id, and so do its dead letters. Nullable without a default: catalogue changes
-- only, existing rows are not rewritten.
ALTER TABLE taskqueue_task ADD COLUMN batch_id uuid;

ALTER TABLE taskqueue_dead_task ADD COLUMN batch_id uuid;

-- Whether a batch still has tasks, and how many. Partial: a task outside any batch costs these indexes nothing.
CREATE INDEX taskqueue_task_batch_idx ON taskqueue_task (batch_id) WHERE batch_id IS NOT NULL;

CREATE INDEX taskqueue_dead_task_batch_idx ON taskqueue_dead_task (batch_id) WHERE batch_id IS NOT NULL;

-- One row per batch (TaskQueue.enqueueBatch), written with its tasks and never by their completions, so that
-- completions do not queue up on it. A batch is finished when none of its tasks is left; the instance that sees it
-- first sets finished_at, the counts and enqueues the "then" task, whose id is chosen at enqueue.
CREATE TABLE taskqueue_batch (
    id                uuid        PRIMARY KEY,
    total             integer     NOT NULL,
    then_task_id      uuid        NOT NULL,
    then_queue        text        NOT NULL,
    then_payload      jsonb       NOT NULL,
    then_priority     integer     NOT NULL,
    then_run_at       timestamptz,
    then_delay_micros bigint      NOT NULL DEFAULT 0,
    then_headers      jsonb       NOT NULL DEFAULT '{}',
    created_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    completed         integer,
    dead              integer
);

-- The batches still open: what the sweep of every instance looks at.
CREATE INDEX taskqueue_batch_open_idx ON taskqueue_batch (created_at) WHERE finished_at IS NULL;

-- Finished batches are deleted after the dead-letter retention.
CREATE INDEX taskqueue_batch_finished_idx ON taskqueue_batch (finished_at) WHERE finished_at IS NOT NULL;
