-- TaskQueue schema, version 10: how often a task was given back by a worker that shut down while its handler ran.
-- Such a give-back does not count an attempt (a deploy must not use up a task's attempts), up to a bound: a task
-- that is interrupted by every deploy then counts its attempts again and still ends in the dead letters
-- (docs/failure-semantics.md). A constant default fills the existing rows without rewriting the table.
ALTER TABLE taskqueue_task ADD COLUMN shutdown_give_backs integer NOT NULL DEFAULT 0;
