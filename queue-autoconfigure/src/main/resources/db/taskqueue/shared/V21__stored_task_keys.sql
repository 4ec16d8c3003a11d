-- TaskQueue schema, version 21: the dead letters and the history keep a task's unique and ordering keys, and the
-- history its batch, so that the dashboard's find box (and whoever reads the tables) finds a dead or completed task
-- by the key or batch it was enqueued with, as it finds a waiting one. Nullable columns with no default change only
-- the catalog: no row is rewritten. Rows moved before this version have none.
ALTER TABLE taskqueue_dead_task ADD COLUMN IF NOT EXISTS unique_key text;
ALTER TABLE taskqueue_dead_task ADD COLUMN IF NOT EXISTS ordering_key text;
ALTER TABLE taskqueue_history ADD COLUMN IF NOT EXISTS unique_key text;
ALTER TABLE taskqueue_history ADD COLUMN IF NOT EXISTS ordering_key text;
ALTER TABLE taskqueue_history ADD COLUMN IF NOT EXISTS batch_id uuid;

-- Found by equality alone, in any queue. Partial: a task without a key or batch costs these indexes nothing, so the
-- completion that keeps a plain task in the history maintains none of them.
CREATE INDEX taskqueue_dead_task_unique_key_idx ON taskqueue_dead_task (unique_key) WHERE unique_key IS NOT NULL;
CREATE INDEX taskqueue_dead_task_ordering_key_idx ON taskqueue_dead_task (ordering_key)
    WHERE ordering_key IS NOT NULL;
CREATE INDEX taskqueue_history_unique_key_idx ON taskqueue_history (unique_key) WHERE unique_key IS NOT NULL;
CREATE INDEX taskqueue_history_ordering_key_idx ON taskqueue_history (ordering_key) WHERE ordering_key IS NOT NULL;
CREATE INDEX taskqueue_history_batch_idx ON taskqueue_history (batch_id) WHERE batch_id IS NOT NULL;
