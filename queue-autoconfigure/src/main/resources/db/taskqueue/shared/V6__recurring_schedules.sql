-- TaskQueue schema, version 6: recurring tasks. One row per schedule (@RecurringTask or taskqueue.schedules.<name>).
-- The row is the schedule's clock: an instance ticks it by moving next_run_at forward with a compare-and-set on the
-- database clock, in the transaction that enqueues the tick's task, so every tick makes exactly one task whatever
-- the number of instances. A schedule no running instance declares any longer keeps its row, and is not ticked.
CREATE TABLE taskqueue_schedule (
    name          text        PRIMARY KEY,
    queue         text        NOT NULL,
    -- What an instance declared, such as 'cron 0 0 2 * * * Europe/Paris' or 'fixed-rate PT1M'; an instance ticks
    -- the schedule only while the row says what it declares itself, so the last declaration wins.
    spec          text        NOT NULL,
    payload       jsonb       NOT NULL DEFAULT '{}',
    -- RUN_ONCE or SKIP: ticks whose time passed while no instance ran.
    missed_ticks  text        NOT NULL DEFAULT 'RUN_ONCE',
    -- SKIP or ALLOW: a tick due while the previous tick's task waits or runs. With SKIP the tasks carry the
    -- schedule's name as their unique key (KEEP), so the enqueue itself tells that the previous task is still there.
    overlap       text        NOT NULL DEFAULT 'SKIP',
    -- Due time of the next tick; NULL while a fixed-delay schedule waits for its last tick's task to finish.
    next_run_at   timestamptz,
    paused        boolean     NOT NULL DEFAULT false,
    last_tick_at  timestamptz,
    last_task_id  uuid,
    ticks         bigint      NOT NULL DEFAULT 0,
    -- Ticks not started because the previous tick's task still waited or ran (overlap = SKIP).
    skipped       bigint      NOT NULL DEFAULT 0,
    -- Ticks not run because no instance ran at their time (missed = SKIP).
    missed        bigint      NOT NULL DEFAULT 0,
    declared_at   timestamptz NOT NULL DEFAULT now(),
    -- Refreshed by every instance that declares the schedule, with its heartbeat.
    seen_at       timestamptz NOT NULL DEFAULT now(),
    changed_at    timestamptz NOT NULL DEFAULT now()
);
