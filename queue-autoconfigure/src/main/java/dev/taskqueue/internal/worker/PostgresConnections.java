package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * What a connection can tell about its PostgreSQL session, read from PostgreSQL's driver without a round trip when
 * the driver is there (it is optional).
 */
final class PostgresConnections {

	private static final boolean PGJDBC = ClassUtils.isPresent("org.postgresql.PGConnection",
			PostgresConnections.class.getClassLoader());

	private PostgresConnections() {
	}

	/** The process id of the database backend serving {@code connection}. */
	public static int backendPid(Connection connection) throws SQLException {
		Integer pid = PGJDBC ? Pgjdbc.backendPid(connection) : null;
		if (pid != null) {
			return pid;
		}
		try (Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT pg_backend_pid()")) {
			result.next();
			return result.getInt(1);
		}
	}

	/**
	 * Whether the transaction on {@code connection} has failed, so that every statement but a rollback would fail;
	 * {@code false} when the driver cannot tell.
	 */
	public static boolean isTransactionFailed(Connection connection) {
		return PGJDBC && Pgjdbc.isTransactionFailed(connection);
	}

	/** Kept apart so that the driver stays optional. */
	private static final class Pgjdbc {

		static @Nullable Integer backendPid(Connection connection) {
			try {
				return connection.isWrapperFor(org.postgresql.PGConnection.class)
						? connection.unwrap(org.postgresql.PGConnection.class).getBackendPID() : null;
			}
			catch (SQLException ex) {
				return null;
			}
		}

		static boolean isTransactionFailed(Connection connection) {
			try {
				return connection.isWrapperFor(org.postgresql.core.BaseConnection.class)
						&& connection.unwrap(org.postgresql.core.BaseConnection.class)
							.getTransactionState() == org.postgresql.core.TransactionState.FAILED;
			}
			catch (SQLException ex) {
				return false;
			}
		}

	}

}
