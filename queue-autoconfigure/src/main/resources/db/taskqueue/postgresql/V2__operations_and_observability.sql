-- TaskQueue schema, version 2: what operating the queues needs. Headers carry a trace context (and anything else
-- an enqueue wants a handler to see) across the hop; queues can be paused for all instances at once; completed
-- tasks can be kept in a history; old dead letters and history rows are pruned by failed_at / completed_at.

-- A constant default makes these two ALTERs a catalogue change only: existing rows are not rewritten.
ALTER TABLE taskqueue_task ADD COLUMN headers jsonb NOT NULL DEFAULT '{}';

ALTER TABLE taskqueue_dead_task ADD COLUMN headers jsonb NOT NULL DEFAULT '{}';

-- Retention deletes the oldest dead letters of all queues; the (queue, failed_at) index cannot find them.
CREATE INDEX taskqueue_dead_task_failed_at_idx ON taskqueue_dead_task (failed_at);

-- One row per queue an operator has paused or resumed; a queue without a row runs. Every instance reads the paused
-- queues with its heartbeat, so the claim statement does not have to look here.
CREATE TABLE taskqueue_queue (
    name       text        PRIMARY KEY,
    paused     boolean     NOT NULL DEFAULT false,
    changed_at timestamptz NOT NULL DEFAULT now()
);

-- Completed tasks, written by the completion itself when taskqueue.history.enabled=true.
CREATE TABLE taskqueue_history (
    id           uuid        PRIMARY KEY,
    queue        text        NOT NULL,
    payload      jsonb       NOT NULL,
    priority     integer     NOT NULL,
    attempts     integer     NOT NULL,
    enqueued_at  timestamptz NOT NULL,
    completed_at timestamptz NOT NULL DEFAULT now(),
    headers      jsonb       NOT NULL DEFAULT '{}'
);

CREATE INDEX taskqueue_history_completed_at_idx ON taskqueue_history (completed_at);
