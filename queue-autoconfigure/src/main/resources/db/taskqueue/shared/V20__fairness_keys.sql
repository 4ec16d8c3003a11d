-- TaskQueue schema, version 20: fair sharing between the tenants of one queue (TaskRequest.withFairnessKey,
-- docs/fairness.md). A task's fairness key names its tenant; while a queue has keyed tasks waiting, the worker's
-- claims take them round-robin across the keys that have due tasks. A nullable column without a default changes
-- only the catalog: no row is rewritten, and every task already in the table has no key.
ALTER TABLE taskqueue_task ADD COLUMN IF NOT EXISTS fairness_key text;

-- The fair claim's index: the waiting keyed tasks, by key, each key in claim order. A loose index scan over it
-- lists the keys with due tasks (one probe per key), and a key's next tasks are the first entries of its range.
-- Partial on both conditions, so that a task without a key (every task of a queue that never uses one) adds no
-- entry to it, on insert, claim or delete: such queues pay no index maintenance. It starts empty, so building it
-- only reads the table once, under a lock against writes that lasts as long as that read.
CREATE INDEX IF NOT EXISTS taskqueue_task_fair_idx ON taskqueue_task (queue, fairness_key, priority DESC, run_at, id)
    WHERE fairness_key IS NOT NULL AND claimed_by IS NULL;
