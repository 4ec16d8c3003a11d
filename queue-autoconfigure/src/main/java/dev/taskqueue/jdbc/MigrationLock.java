package dev.taskqueue.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A PostgreSQL advisory lock held around TaskQueue's migration, so that instances starting together migrate one
 * after the other. Flyway locks only once its history table exists: two instances on an empty schema would both
 * decide to create or baseline it.
 */
public final class MigrationLock {

	private static final String LOCK = "SELECT pg_advisory_lock(hashtext(?))";

	private static final String UNLOCK = "SELECT pg_advisory_unlock(hashtext(?))";

	private MigrationLock() {
	}

	/**
	 * Runs {@code migration} while holding the lock named after {@code tables}' schema. The migration is given the
	 * locking connection as its data source, so even a pool of one connection suffices.
	 */
	public static void holding(DataSource dataSource, TaskTables tables, Consumer<DataSource> migration) {
		String name = "taskqueue migration " + ((tables.schema() != null) ? tables.schema() : "");
		try (Connection connection = dataSource.getConnection()) {
			call(connection, LOCK, name);
			try {
				migration.accept(new SingleConnectionDataSource(connection, true));
			}
			finally {
				call(connection, UNLOCK, name);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not take TaskQueue's migration lock: " + ex.getMessage(), ex);
		}
	}

	private static void call(Connection connection, String sql, String name) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, name);
			statement.execute();
		}
	}

}
