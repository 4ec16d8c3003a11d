package dev.taskqueue.internal.worker;

import java.time.Duration;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;

/** Expires silent sessions as a heartbeat does, for a test outside the worker's package that needs it at once. */
public final class SessionExpiry {

	private SessionExpiry() {
	}

	/**
	 * Deletes every session of {@code tables} silent for longer than {@code timeout}, on {@code dataSource}, and makes
	 * their tasks ready again.
	 * @return how many tasks were released
	 */
	public static int expire(DataSource dataSource, TaskTables tables, Duration timeout) {
		return new SessionRepository(dataSource, tables).expire(timeout);
	}

}
