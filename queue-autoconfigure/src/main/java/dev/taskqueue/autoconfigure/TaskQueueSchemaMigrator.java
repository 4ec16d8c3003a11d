package dev.taskqueue.autoconfigure;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.support.DatabaseFailures;
import dev.taskqueue.internal.support.StartupFailure;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

import org.springframework.beans.factory.InitializingBean;

/**
 * Applies TaskQueue's own Flyway migrations ({@code classpath:db/taskqueue}, history table
 * {@code taskqueue_schema_history}) when the application starts. It is deliberately not a {@code Flyway} bean,
 * which would make Spring Boot skip the application's own migrations. On CockroachDB and YugabyteDB it applies their
 * own locations instead, which take the migrations that are the same from this one ({@link MigrationLocations}).
 */
public class TaskQueueSchemaMigrator implements InitializingBean {

	/**
	 * Where PostgreSQL's migrations are, in this folder's subfolders (see {@link MigrationLocations}); the SQL files
	 * there are the schema's single source of truth.
	 */
	public static final String LOCATION = "classpath:db/taskqueue";

	/** TaskQueue's Flyway history table, apart from the application's. */
	public static final String HISTORY_TABLE = "taskqueue_schema_history";

	// YugabyteDB before 2025.1 fails every advisory lock call unless this is on; then they do nothing. Flyway's
	// PostgreSQL support, which Flyway 12 applies to YugabyteDB, takes one around the migration; the migration lock
	// held around Flyway already keeps instances from migrating at the same time.
	private static final String YB_SILENCE_ADVISORY_LOCK_ERRORS = "yb_silence_advisory_locks_not_supported_error";

	private final DataSource dataSource;

	private final TaskTables tables;

	private final boolean advisoryLocks;

	public TaskQueueSchemaMigrator(DataSource dataSource, TaskTables tables) {
		this(dataSource, tables, true);
	}

	/**
	 * @param dataSource the application's data source
	 * @param tables the table names
	 * @param advisoryLocks whether the database has advisory locks for {@link MigrationLock}, else a row lock
	 */
	public TaskQueueSchemaMigrator(DataSource dataSource, TaskTables tables, boolean advisoryLocks) {
		this.dataSource = dataSource;
		this.tables = tables;
		this.advisoryLocks = advisoryLocks;
	}

	@Override
	public void afterPropertiesSet() {
		try {
			MigrationLock.holding(this.dataSource, this.tables, this.advisoryLocks, this::migrate);
		}
		catch (RuntimeException ex) {
			throw startupFailure(ex);
		}
	}

	/**
	 * The migration is the first thing of TaskQueue's to need the database, so this is where a database that is
	 * down or unreachable shows: said as such, apart from a migration that failed.
	 */
	static StartupFailure startupFailure(RuntimeException ex) {
		StartupFailure unreachable = DatabaseFailures.unreachable(ex, "migrate its tables");
		if (unreachable != null) {
			return unreachable;
		}
		return new StartupFailure("TaskQueue's schema migration failed: " + ex.getMessage(),
				"Fix the cause above and start again: on PostgreSQL a failed migration is rolled back, so the next "
						+ "start runs it again. TaskQueue's migrations are in " + LOCATION + ", their history in "
						+ "the table " + HISTORY_TABLE + ", apart from the application's own.",
				ex);
	}

	private void migrate(DataSource connection) {
		try (Connection locked = connection.getConnection()) {
			MigrationLocations database = MigrationLocations.of(locked);
			boolean silenced = database == MigrationLocations.YUGABYTEDB && silenceAdvisoryLockErrors(locked);
			try {
				migrate(connection, database.locations());
			}
			finally {
				if (silenced) {
					execute(locked, "RESET " + YB_SILENCE_ADVISORY_LOCK_ERRORS);
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not prepare TaskQueue's migration: " + ex.getMessage(), ex);
		}
	}

	private void migrate(DataSource connection, String... locations) {
		FluentConfiguration configuration = Flyway.configure(getClass().getClassLoader())
			.dataSource(connection)
			.locations(locations)
			.table(HISTORY_TABLE)
			// The schema usually holds the application's tables already: start our history below V1.
			.baselineOnMigrate(true)
			.baselineVersion("0");
		if (this.tables.schema() != null) {
			configuration.schemas(this.tables.schema()).createSchemas(true);
		}
		configuration.load().migrate();
	}

	/** Turns YugabyteDB's advisory lock errors off on {@code connection} if it has the setting; says whether. */
	private static boolean silenceAdvisoryLockErrors(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT count(*) FROM pg_settings WHERE name = '"
						+ YB_SILENCE_ADVISORY_LOCK_ERRORS + "'")) {
			if (!result.next() || result.getInt(1) == 0) {
				return false;
			}
		}
		execute(connection, "SET " + YB_SILENCE_ADVISORY_LOCK_ERRORS + " = on");
		return true;
	}

	private static void execute(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}
