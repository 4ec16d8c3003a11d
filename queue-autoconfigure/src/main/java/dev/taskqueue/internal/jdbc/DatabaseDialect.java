package dev.taskqueue.internal.jdbc;

/**
 * What TaskQueue uses of the database it runs on, resolved once at startup from {@code taskqueue.database} (or
 * detection) and {@code taskqueue.notify.enabled}. Every place that would use a feature some database lacks asks
 * this instead of the database's name, so a test can run those places on PostgreSQL with the features taken away.
 * @param database the database
 * @param listenNotify whether enqueues send {@code pg_notify} and workers {@code LISTEN}
 * @param advisoryLocks whether the migration lock is an advisory lock (else a row lock, see the migrator's
 * {@code MigrationLock})
 * @param sessionEnd how a group commit that is given up ends its transaction's session (see the worker's
 * {@code SessionEnder})
 */
public record DatabaseDialect(Database database, boolean listenNotify, boolean advisoryLocks, SessionEnd sessionEnd) {

	/** The dialect of {@code database} with its own capabilities, and {@code notify} as resolved. */
	public static DatabaseDialect of(Database database, boolean notify) {
		SessionEnd end = database.terminateBackend() ? SessionEnd.TERMINATE_BACKEND
				: (database == Database.COCKROACHDB) ? SessionEnd.CANCEL_SESSION : SessionEnd.CLOSE_CONNECTION;
		return new DatabaseDialect(database, notify, database.advisoryLocks(), end);
	}

	/** How another thread ends the session serving a transaction, rolling the transaction back. */
	public enum SessionEnd {

		/** {@code SELECT pg_terminate_backend(pid)} (PostgreSQL, YugabyteDB). */
		TERMINATE_BACKEND,

		/** {@code CANCEL SESSION} with the session's id from {@code SHOW session_id} (CockroachDB). */
		CANCEL_SESSION,

		/**
		 * Closing the connection's socket ({@link java.sql.Connection#abort}) without asking the server: the server
		 * rolls the transaction back when it sees the connection gone, at once while the session waits for the
		 * client, at the end of its statement when it runs one. For databases with neither of the above.
		 */
		CLOSE_CONNECTION

	}

}
