-- TaskQueue schema, version 9: hash-sharded claims (docs/hash-sharded-claims.md). A task's bucket is a hash of its
-- id modulo the bucket count its producer had configured for the queue (taskqueue.queues.<name>.buckets), 0 with
-- the default of one bucket, and the claim reads one bucket of the ready index at a time.
-- Adding a NOT NULL column with a constant default changes only the catalog (no table rewrite): every task already
-- in the table is in bucket 0, where a claim of any bucket count finds it (a short claim goes on to every bucket).
ALTER TABLE taskqueue_task ADD COLUMN IF NOT EXISTS bucket smallint NOT NULL DEFAULT 0;

-- The ready index gains the bucket after the queue, and replaces the old one rather than joining it, so an insert
-- still updates one index for the claim. Within one bucket it is the claim order (priority DESC, run_at, id); with
-- one bucket (every task in bucket 0) it is exactly the order of V1's index.
-- Building it locks the task table against writes for as long as it takes, which grows with the waiting
-- tasks (it holds only those). To avoid that, add the column and create the index beforehand, the index with
-- CREATE INDEX CONCURRENTLY under this name (docs/hash-sharded-claims.md): both statements here then do nothing.
CREATE INDEX IF NOT EXISTS taskqueue_task_ready_bucket_idx ON taskqueue_task (queue, bucket, priority DESC, run_at, id)
    WHERE claimed_by IS NULL;

DROP INDEX taskqueue_task_ready_idx;
