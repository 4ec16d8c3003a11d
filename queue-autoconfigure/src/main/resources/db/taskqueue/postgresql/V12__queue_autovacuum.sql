-- TaskQueue schema, version 12: autovacuum settings for the task table, which deletes every row it inserts and so
-- lives on VACUUM (docs/operations.md#bloat). PostgreSQL's defaults wait for 20 % of the rows the table had at its
-- last VACUUM to be dead: a table that once held a backlog of a million tasks waits for 200,000 dead rows, which
-- every claim then steps over in the ready index. Here it is a fixed 1,000 dead rows whatever the size, and each
-- run is allowed ten times the default I/O before it pauses (cost limit 2,000, pause 2 ms: PostgreSQL 12's default
-- pause, written out so that a server still configured with the old 20 ms does not slow this table down).
-- Statistics (ANALYZE) keep PostgreSQL's defaults: the claims do not depend on them (docs/internals.md).
--
-- An operator's own settings win: a parameter the table already has (set with ALTER TABLE ... SET before this
-- version ran) is left as it is, and no later version of TaskQueue sets these parameters again
-- (MigrationLocationsTests holds that), so ALTER TABLE taskqueue_task SET (...) after an upgrade stays too.
-- CockroachDB and YugabyteDB have no autovacuum: their version 12 does nothing.
DO $$
DECLARE
    setting text;
BEGIN
    FOREACH setting IN ARRAY ARRAY['autovacuum_vacuum_scale_factor=0', 'autovacuum_vacuum_threshold=1000',
                                   'autovacuum_vacuum_cost_limit=2000', 'autovacuum_vacuum_cost_delay=2'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_class c, unnest(c.reloptions) o
                       WHERE c.oid = 'taskqueue_task'::regclass
                         AND split_part(o, '=', 1) = split_part(setting, '=', 1)) THEN
            EXECUTE 'ALTER TABLE taskqueue_task SET (' || setting || ')';
        END IF;
    END LOOP;
END
$$;
