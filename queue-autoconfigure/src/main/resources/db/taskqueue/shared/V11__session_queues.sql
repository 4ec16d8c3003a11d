-- TaskQueue schema, version 11: each session records the queues its instance has handlers for, so that operators
-- can see a queue whose tasks wait while no live instance handles it (an enqueue for such a queue succeeds: it may
-- be another application's). Set when the session opens and with every heartbeat, so a handler added later shows.
-- NULL for a session that does not record them (a test's TaskRunner); a nullable column without a default changes
-- only the catalog: no row is rewritten and the live sessions of an upgrade keep running.
ALTER TABLE taskqueue_session ADD COLUMN IF NOT EXISTS queues text[];
