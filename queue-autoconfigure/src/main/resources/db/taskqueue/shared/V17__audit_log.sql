-- TaskQueue schema, version 17: the audit log of what operators did (docs/dashboard.md#audit-log). Every action of
-- TaskQueueOperations (pause, retry, delete, cancel, a schedule's pause or trigger ...), from the dashboard, the
-- actuator endpoint or the application's own code, adds one row in the transaction of the action (after the last
-- chunk for the actions done in chunks): who, when on the database clock, what and how many rows it changed. Rows
-- are deleted with the dead letters' retention. Operators act a few times a day: the table stays small, and its
-- one index serves both the page (newest first) and the pruning.
CREATE TABLE taskqueue_audit (
    id        uuid        PRIMARY KEY,
    acted_at  timestamptz NOT NULL DEFAULT now(),
    -- The principal's name, "anonymous" (a dashboard without authentication), or "application" (code, no principal).
    actor     text        NOT NULL,
    -- dashboard, actuator or api (TaskQueueOperations called by the application).
    via       text        NOT NULL,
    action    text        NOT NULL,
    -- What it acted on: a queue, a task, a schedule, or the filter of a bulk action.
    target    text        NOT NULL,
    row_count bigint      NOT NULL
);

-- Newest first for the page, by range for the pruning; the explicit order makes it a range index on YugabyteDB too.
CREATE INDEX taskqueue_audit_acted_at_idx ON taskqueue_audit (acted_at DESC, id DESC);
