package dev.taskqueue.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import dev.taskqueue.test.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * YugabyteDB's copies of the migrations are PostgreSQL SQL too: applied to PostgreSQL they make exactly the schema
 * of PostgreSQL's own, but for the task table's fillfactor and autovacuum settings (version 12 is PostgreSQL's only). (CockroachDB's use {@code USING HASH}, which only
 * CockroachDB parses; see docs/distributed-sql.md for what proves them.)
 */
class MigrationLocationsIntegrationTests {

	private static final String COLUMNS = """
			SELECT table_name, column_name, data_type, is_nullable, coalesce(column_default, '')
			FROM information_schema.columns WHERE table_schema = current_schema()
			ORDER BY table_name, column_name""";

	private static final String INDEXES = """
			SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname""";

	private static final String SEQUENCES = """
			SELECT sequence_name, data_type, start_value, increment FROM information_schema.sequences
			WHERE sequence_schema = current_schema() ORDER BY sequence_name""";

	private static final String OPTIONS = """
			SELECT c.relname || ' ' || array_to_string(c.reloptions, ',') FROM pg_class c
			JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = current_schema() AND c.reloptions IS NOT NULL ORDER BY c.relname""";

	@Test
	void yugabyteMigrationsMakePostgresqlsSchemaButForFillfactor() {
		JdbcTemplate postgresql = migrated(MigrationLocations.POSTGRESQL);
		JdbcTemplate yugabyte = migrated(MigrationLocations.YUGABYTEDB);
		for (String query : List.of(COLUMNS, INDEXES, SEQUENCES)) {
			List<String> expected = rows(postgresql, query);
			assertThat(expected).as(query).isNotEmpty();
			assertThat(rows(yugabyte, query)).as(query).isEqualTo(expected);
		}
		assertThat(rows(postgresql, OPTIONS)).containsExactly("taskqueue_task fillfactor=80,"
				+ "autovacuum_vacuum_scale_factor=0,autovacuum_vacuum_threshold=1000,"
				+ "autovacuum_vacuum_cost_limit=2000,autovacuum_vacuum_cost_delay=2");
		assertThat(rows(yugabyte, OPTIONS)).isEmpty();
	}

	@Test
	void postgresqlIsToldApartFromTheDistributedDatabases() throws SQLException {
		DriverManagerDataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		try (Connection connection = dataSource.getConnection()) {
			assertThat(MigrationLocations.of(connection)).isEqualTo(MigrationLocations.POSTGRESQL);
		}
	}

	private static JdbcTemplate migrated(MigrationLocations database) {
		DriverManagerDataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		Flyway.configure()
			.dataSource(dataSource)
			.locations(database.locations())
			.table(TaskQueueSchemaMigrator.HISTORY_TABLE)
			.load()
			.migrate();
		return new JdbcTemplate(dataSource);
	}

	private static List<String> rows(JdbcTemplate jdbc, String query) {
		return jdbc.query(query, (rs, row) -> {
			StringBuilder line = new StringBuilder();
			for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
				line.append((i > 1) ? " | " : "").append(rs.getString(i));
			}
			return line.toString();
		});
	}

}
