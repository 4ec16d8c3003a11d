-- TaskQueue schema, version 12: on PostgreSQL, autovacuum settings for the task table. CockroachDB has no VACUUM and
-- no autovacuum (old row versions are removed by its MVCC garbage collection, after the zone's gc.ttlseconds), so
-- there is nothing to set: this version only keeps the version numbers of every database in step.
SELECT 1;
