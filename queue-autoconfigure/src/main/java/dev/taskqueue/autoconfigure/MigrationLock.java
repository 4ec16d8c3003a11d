package dev.taskqueue.autoconfigure;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Consumer;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;

import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A lock held around TaskQueue's migration, so that instances starting together migrate one after the other. Flyway
 * locks only once its history table exists: two instances on an empty schema would both decide to create or
 * baseline it.
 * <p>
 * On PostgreSQL it is an advisory lock, taken on the connection the migration then runs on, so even a pool of one
 * connection suffices. Databases without advisory locks (CockroachDB, YugabyteDB) get a row lock instead: a row of
 * {@code taskqueue_migration_lock} (created if missing, outside Flyway, since it must exist before the migration)
 * locked {@code FOR UPDATE} in a transaction of its own that stays open across the migration, which runs on a second
 * connection: a migration's commits would end the lock's transaction.
 */
final class MigrationLock {

	private static final String LOCK = "SELECT pg_advisory_lock(hashtext(?))";

	private static final String UNLOCK = "SELECT pg_advisory_unlock(hashtext(?))";

	private static final String ROW_TABLE = "taskqueue_migration_lock";

	private static final String CREATE_SCHEMA = "CREATE SCHEMA IF NOT EXISTS %s";

	private static final String CREATE_TABLE = "CREATE TABLE IF NOT EXISTS %s (name text PRIMARY KEY)";

	private static final String ADD_ROW = "INSERT INTO %s (name) VALUES (?) ON CONFLICT (name) DO NOTHING";

	private static final String LOCK_ROW = "SELECT name FROM %s WHERE name = ? FOR UPDATE";

	/** How often preparing or locking the row is tried: instances creating the table together may collide. */
	private static final int ATTEMPTS = 10;

	private MigrationLock() {
	}

	/**
	 * Runs {@code migration} while holding the advisory lock named after {@code tables}' schema. The migration is
	 * given the locking connection as its data source, so even a pool of one connection suffices.
	 */
	static void holding(DataSource dataSource, TaskTables tables, Consumer<DataSource> migration) {
		holding(dataSource, tables, true, migration);
	}

	/**
	 * Runs {@code migration} while holding the lock named after {@code tables}' schema: an advisory lock when
	 * {@code advisoryLocks}, else a row lock (which needs two connections of the pool).
	 */
	static void holding(DataSource dataSource, TaskTables tables, boolean advisoryLocks,
			Consumer<DataSource> migration) {
		String name = "taskqueue migration " + ((tables.schema() != null) ? tables.schema() : "");
		try {
			if (advisoryLocks) {
				holdingAdvisoryLock(dataSource, name, migration);
			}
			else {
				holdingRowLock(dataSource, tables, name, migration);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not take TaskQueue's migration lock: " + ex.getMessage(), ex);
		}
	}

	private static void holdingAdvisoryLock(DataSource dataSource, String name, Consumer<DataSource> migration)
			throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			call(connection, LOCK, name);
			try {
				migration.accept(new SingleConnectionDataSource(connection, true));
			}
			finally {
				call(connection, UNLOCK, name);
			}
		}
	}

	private static void holdingRowLock(DataSource dataSource, TaskTables tables, String name,
			Consumer<DataSource> migration) throws SQLException {
		String table = (tables.schema() != null) ? tables.schema() + "." + ROW_TABLE : ROW_TABLE;
		try (Connection lock = dataSource.getConnection()) {
			boolean autoCommit = lock.getAutoCommit();
			for (int attempt = 1;; attempt++) {
				try {
					addRow(lock, tables, table, name);
					lock.setAutoCommit(false);
					call(lock, LOCK_ROW.formatted(table), name);
					break;
				}
				catch (SQLException ex) {
					rollBack(lock, autoCommit);
					if (attempt == ATTEMPTS) {
						throw ex;
					}
				}
			}
			try (Connection work = dataSource.getConnection()) {
				migration.accept(new SingleConnectionDataSource(work, true));
			}
			finally {
				rollBack(lock, autoCommit); // ends the lock's transaction, which changed nothing
			}
		}
	}

	private static void addRow(Connection connection, TaskTables tables, String table, String name)
			throws SQLException {
		connection.setAutoCommit(true);
		try (Statement statement = connection.createStatement()) {
			if (tables.schema() != null) {
				statement.execute(CREATE_SCHEMA.formatted(tables.schema()));
			}
			statement.execute(CREATE_TABLE.formatted(table));
		}
		call(connection, ADD_ROW.formatted(table), name);
	}

	private static void rollBack(Connection connection, boolean autoCommit) throws SQLException {
		if (!connection.getAutoCommit()) {
			connection.rollback();
		}
		connection.setAutoCommit(autoCommit);
	}

	private static void call(Connection connection, String sql, String name) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, name);
			statement.execute();
		}
	}

}
