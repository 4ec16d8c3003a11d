-- TaskQueue schema, version 4: ordered keys. Tasks of a queue with the same ordering key (TaskRequest.withOrderingKey)
-- run one at a time, in enqueue order. Of the tasks of a key, one is the head: it waits, runs or waits to retry like
-- any task. The others are held: their claimed_by is the nil UUID, a session id no session ever has, which keeps
-- them out of the claim's partial index (WHERE claimed_by IS NULL) so the claim statement is unchanged and never
-- reads them. When the head completes or goes to the dead letters, the statement that deletes it makes the held task
-- with the lowest ordering_seq the new head.

-- Nullable columns without a default: catalogue changes only, existing rows are not rewritten.
ALTER TABLE taskqueue_task ADD COLUMN ordering_key text;

-- Enqueue order within a key: taken from a sequence by the enqueue statement itself, so it is exact across
-- instances (no clocks) and follows the order of a list within one enqueueAll. No cache: a cached range per
-- connection would not follow the order of the statements.
ALTER TABLE taskqueue_task ADD COLUMN ordering_seq bigint;

CREATE SEQUENCE taskqueue_task_ordering_seq;

-- At most one head per queue and key. An enqueue inserts its task as the head with ON CONFLICT DO NOTHING on this
-- index, and as held when that inserts nothing: concurrent enqueues of one key wait here for each other, none fails.
CREATE UNIQUE INDEX taskqueue_task_ordering_head_idx ON taskqueue_task (queue, ordering_key)
    WHERE ordering_key IS NOT NULL AND claimed_by IS DISTINCT FROM '00000000-0000-0000-0000-000000000000';

-- The held tasks of a key in enqueue order: the next head, the held count of the statistics, the keys left without
-- a head (see OrderedKeys).
CREATE INDEX taskqueue_task_ordering_held_idx ON taskqueue_task (queue, ordering_key, ordering_seq)
    WHERE claimed_by = '00000000-0000-0000-0000-000000000000';
