-- TaskQueue schema, version 12: on PostgreSQL, autovacuum settings for the task table. YugabyteDB's tables are not
-- heap tables and have no VACUUM to tune (old row versions are removed by DocDB's compactions once they leave the
-- history retention), so there is nothing to set: this version only keeps the version numbers of every database
-- in step.
SELECT 1;
