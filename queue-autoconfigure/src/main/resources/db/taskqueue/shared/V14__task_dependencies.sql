-- TaskQueue schema, version 14: dependencies between tasks (TaskRequest.withDependsOn). A task that waits for its
-- prerequisites is kept here, not in taskqueue_task: the claim, its index and the completions never see it, so
-- queues that use no dependency pay nothing for them. The sweep of every instance with a worker moves a waiting
-- task into taskqueue_task (or the dead letters) once none of its prerequisites is waiting or running any more,
-- deleting it here in the same statement: exactly once, whichever instances sweep at the same moment.
CREATE TABLE taskqueue_waiting_task (
    id           uuid        PRIMARY KEY,
    queue        text        NOT NULL,
    payload      jsonb       NOT NULL,
    priority     integer     NOT NULL,
    -- When it is due once released: run_at if given (or now, if that has passed), else release + delay.
    run_at       timestamptz,
    delay_micros bigint      NOT NULL DEFAULT 0,
    headers      jsonb       NOT NULL DEFAULT '{}',
    batch_id     uuid,
    -- The ids of the tasks it waits for; one that is nowhere counts as completed.
    depends_on   uuid[]      NOT NULL,
    -- DEAD or RUN_ANYWAY (dev.taskqueue.DependencyFailure): what it does when a prerequisite is in the dead letters.
    on_failure   text        NOT NULL,
    enqueued_at  timestamptz NOT NULL DEFAULT now()
);

-- The sweep's order, and the count per queue of the statistics.
CREATE INDEX taskqueue_waiting_task_queue_idx ON taskqueue_waiting_task (queue, enqueued_at);

-- Whether a batch still has tasks waiting for prerequisites.
CREATE INDEX taskqueue_waiting_task_batch_idx ON taskqueue_waiting_task (batch_id) WHERE batch_id IS NOT NULL;
