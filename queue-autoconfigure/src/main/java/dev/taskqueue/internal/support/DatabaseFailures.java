package dev.taskqueue.internal.support;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import org.jspecify.annotations.Nullable;

/**
 * Tells, from an exception, why TaskQueue's first statements at startup failed: the database could not be reached,
 * or TaskQueue's tables are not there. Used where a database that is down shows first: the schema migration, and
 * with {@code taskqueue.schema.migrate=false} the topic subscriptions and the worker's session.
 */
public final class DatabaseFailures {

	/** What to do about a database that cannot be reached. */
	static final String CHECK_CONNECTION = "Check that the database is running and reachable from this "
			+ "application, and spring.datasource.url, spring.datasource.username and spring.datasource.password.";

	private DatabaseFailures() {
	}

	/**
	 * The deepest failure to connect in {@code ex}'s causes, {@code null} if none: SQLSTATE class 08 (connection
	 * exception), or a pool that ran out of time waiting for a connection.
	 */
	static @Nullable SQLException connectionFailure(Throwable ex) {
		SQLException found = null;
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLTransientConnectionException
					|| (cause instanceof SQLException sql && sql.getSQLState() != null
							&& sql.getSQLState().startsWith("08"))) {
				found = (SQLException) cause;
			}
		}
		return found;
	}

	/**
	 * {@code ex}, thrown by one of TaskQueue's first statements at startup, as a {@link StartupFailure} when the
	 * database could not be reached or TaskQueue's tables are not there; {@code ex} itself otherwise.
	 * @param doing what TaskQueue was doing, such as {@code "open the worker's session"}
	 */
	public static RuntimeException atStartup(RuntimeException ex, String doing) {
		StartupFailure unreachable = unreachable(ex, doing);
		if (unreachable != null) {
			return unreachable;
		}
		SQLException undefinedTable = undefinedTable(ex);
		if (undefinedTable != null) {
			// The driver's message names the table; the exception's own repeats the whole statement.
			return new StartupFailure("TaskQueue could not " + doing + ": its tables are not there ("
					+ undefinedTable.getMessage() + ")", "Apply TaskQueue's migrations (classpath:db/taskqueue) to "
							+ "this database and schema, or remove taskqueue.schema.migrate=false to have TaskQueue "
							+ "apply them at startup.",
					ex);
		}
		return ex;
	}

	/**
	 * {@code ex} as a {@link StartupFailure} if the database could not be reached, {@code null} if it could.
	 * @param doing what TaskQueue was doing, such as {@code "migrate its tables"}
	 */
	public static @Nullable StartupFailure unreachable(RuntimeException ex, String doing) {
		SQLException connection = connectionFailure(ex);
		return (connection != null) ? new StartupFailure("TaskQueue could not connect to the database to " + doing
				+ ": " + withReason(ex.getMessage(), connection), CHECK_CONNECTION, ex) : null;
	}

	/** The failure of a table that does not exist (SQLSTATE 42P01) in {@code ex}'s causes, {@code null} if none. */
	private static @Nullable SQLException undefinedTable(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && "42P01".equals(sql.getSQLState())) {
				return sql;
			}
		}
		return null;
	}

	/** {@code message}, with the message of {@code cause} in parentheses where it does not say it already. */
	static String withReason(@Nullable String message, SQLException cause) {
		String text = String.valueOf(message);
		return (cause.getMessage() != null && !text.contains(cause.getMessage())) ? text + " (" + cause.getMessage()
				+ ")" : text;
	}

}
