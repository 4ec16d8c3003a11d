package dev.taskqueue.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What a schema holds, in the terms Flyway uses to call a schema empty, telling TaskQueue's objects (whose names all
 * start with {@code taskqueue_}) from everything else. Lets the application's Flyway, added after TaskQueue has
 * created its tables, find a schema that is empty but for TaskQueue.
 */
final class SchemaContents {

	private static final String CURRENT_SCHEMA = """
			SELECT current_schema()
			""";

	private static final String TABLE_EXISTS = """
			SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c
			    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			    WHERE n.nspname = :schema AND c.relname = :table)
			""";

	// Flyway's own test of an empty PostgreSQL schema (relations, types, functions not owned by an extension),
	// counting TaskQueue's relations and everything else apart. A table's row and array types are not counted.
	private static final String CONTENTS = """
			SELECT count(*) FILTER (WHERE ours) AS ours, count(*) FILTER (WHERE NOT ours) AS others
			FROM (
			    SELECT c.relname LIKE 'taskqueue\\_%' AS ours FROM pg_catalog.pg_class c
			    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			    LEFT JOIN pg_catalog.pg_depend d ON d.objid = c.oid AND d.deptype = 'e'
			    WHERE n.nspname = :schema AND d.objid IS NULL AND c.relkind IN ('r', 'v', 'S', 't')
			  UNION ALL
			    SELECT false FROM pg_catalog.pg_type t
			    JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
			    LEFT JOIN pg_catalog.pg_depend d ON d.objid = t.oid AND d.deptype = 'e'
			    WHERE n.nspname = :schema AND d.objid IS NULL AND t.typcategory NOT IN ('A', 'C')
			  UNION ALL
			    SELECT false FROM pg_catalog.pg_proc p
			    JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
			    LEFT JOIN pg_catalog.pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
			    WHERE n.nspname = :schema AND d.objid IS NULL) objects
			""";

	private final JdbcClient jdbc;

	SchemaContents(DataSource dataSource) {
		this.jdbc = JdbcClient.create(dataSource);
	}

	/** The connection's current schema, where unqualified names go. */
	String currentSchema() {
		return this.jdbc.sql(CURRENT_SCHEMA).query(String.class).single();
	}

	/** Whether {@code schema} has a table (or any relation) named {@code table}. */
	boolean hasTable(String schema, String table) {
		return this.jdbc.sql(TABLE_EXISTS).param("schema", schema).param("table", table).query(Boolean.class).single();
	}

	/** Whether every one of {@code schemas} holds nothing but TaskQueue's tables, and one of them holds some. */
	boolean holdOnlyTaskQueue(List<String> schemas) {
		boolean any = false;
		for (String schema : schemas) {
			Counts counts = this.jdbc.sql(CONTENTS).param("schema", schema).query(Counts.class).single();
			if (counts.others() > 0) {
				return false;
			}
			any |= counts.ours() > 0;
		}
		return any;
	}

	private record Counts(long ours, long others) {
	}

}
