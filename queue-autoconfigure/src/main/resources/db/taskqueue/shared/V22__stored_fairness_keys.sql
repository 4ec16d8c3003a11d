-- TaskQueue schema, version 22: the dead letters and the history keep a task's fairness key (V20), as V21 made them
-- keep its unique and ordering keys. A dead letter retried goes back with its key, so that its tenant's share of the
-- fair claims (docs/fairness.md) takes it again, instead of the turn of the tasks without a key; and an operator sees
-- whose task died or completed. Nullable columns with no default change only the catalog: no row is rewritten. Rows
-- moved before this version have none. On CockroachDB, which refuses fairness keys at enqueue, they stay empty.
-- No index: nothing looks a dead letter or history row up by its fairness key (the dashboard's find box looks for a
-- task, and a tenant's key would name all of its tasks); a task without a key then costs these tables nothing more.
ALTER TABLE taskqueue_dead_task ADD COLUMN IF NOT EXISTS fairness_key text;
ALTER TABLE taskqueue_history ADD COLUMN IF NOT EXISTS fairness_key text;
