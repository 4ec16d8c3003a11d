package dev.taskqueue.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import javax.sql.DataSource;

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

	/** Runs {@code migration} while holding the lock named after {@code tables}' schema, on a connection of its own. */
	public static void holding(DataSource dataSource, TaskTables tables, Runnable migration) {
		String name = "taskqueue migration " + ((tables.schema() != null) ? tables.schema() : "");
		try (Connection connection = dataSource.getConnection()) {
			call(connection, LOCK, name);
			try {
				migration.run();
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
