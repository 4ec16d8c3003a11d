package dev.taskqueue.autoconfigure;

import javax.sql.DataSource;

import dev.taskqueue.jdbc.MigrationLock;
import dev.taskqueue.jdbc.TaskTables;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

import org.springframework.beans.factory.InitializingBean;

/**
 * Applies TaskQueue's own Flyway migrations ({@code classpath:db/taskqueue}, history table
 * {@code taskqueue_schema_history}) when the application starts. It is deliberately not a {@code Flyway} bean,
 * which would make Spring Boot skip the application's own migrations.
 */
public class TaskQueueSchemaMigrator implements InitializingBean {

	/** Where the migrations are; the SQL files there are the schema's single source of truth. */
	public static final String LOCATION = "classpath:db/taskqueue";

	/** TaskQueue's Flyway history table, apart from the application's. */
	public static final String HISTORY_TABLE = "taskqueue_schema_history";

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
		MigrationLock.holding(this.dataSource, this.tables, this.advisoryLocks, this::migrate);
	}

	private void migrate(DataSource connection) {
		FluentConfiguration configuration = Flyway.configure(getClass().getClassLoader())
			.dataSource(connection)
			.locations(LOCATION)
			.table(HISTORY_TABLE)
			// The schema usually holds the application's tables already: start our history below V1.
			.baselineOnMigrate(true)
			.baselineVersion("0");
		if (this.tables.schema() != null) {
			configuration.schemas(this.tables.schema()).createSchemas(true);
		}
		configuration.load().migrate();
	}

}
