-- TaskQueue schema, version 13: sliding rate limits (taskqueue.queues.<name>.rate-limit.window=sliding). The queue's
-- row keeps its recent claims, so that a claim can count the starts of the last period wherever it begins: pairs of
-- a time on the database clock (microseconds since the epoch, the claimed_at of the claim) and how many tasks it
-- claimed, oldest first, in two arrays of the same length. A claim prunes what is older than the period and joins
-- claims of the same hundredth of a period, so a log holds at most about 101 pairs whatever the limit.
-- Nullable columns without a default: catalogue changes only, no row is rewritten, and a queue gets its log with its
-- first sliding claim. Queues without a sliding rate limit never touch them.
ALTER TABLE taskqueue_queue ADD COLUMN IF NOT EXISTS rate_log_micros bigint[];

ALTER TABLE taskqueue_queue ADD COLUMN IF NOT EXISTS rate_log_starts bigint[];
