-- TaskQueue schema, version 19: a task's story (issue 28), the last attempts of each task that failed at least once,
-- as a JSON array of {attempt, started, ended, instance, outcome, error}, oldest first, at most AttemptLog.SIZE (10)
-- elements. Written only by the statements of the failure paths (retry, dead letter, cancel of a running task, an
-- expired instance's claim taken back), which append and trim in one expression: a task that never failed keeps
-- NULL here, and its claim and completion statements are unchanged. A completion kept in the history copies the
-- column, with the completed attempt appended when the task had failed before. Nullable, no default: each
-- statement changes only the catalog, on a table with rows too.
ALTER TABLE taskqueue_task ADD COLUMN IF NOT EXISTS attempt_log jsonb;
ALTER TABLE taskqueue_dead_task ADD COLUMN IF NOT EXISTS attempt_log jsonb;
ALTER TABLE taskqueue_history ADD COLUMN IF NOT EXISTS attempt_log jsonb;
