package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.DatabaseDialect.SessionEnd;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Ends the database session serving a transaction from another thread, so that the transaction rolls back and its
 * locks are freed while its own thread is still busy (group commit's give-up). How depends on the database
 * ({@link SessionEnd}): PostgreSQL and YugabyteDB end the backend, CockroachDB cancels the session, and where neither
 * exists the connection's socket is closed. In each case the transaction can no longer commit: its session is gone.
 */
class SessionEnder {

	// A role may always end its own backends, without pg_signal_backend.
	private static final String TERMINATE = "SELECT pg_terminate_backend(?)";

	// A user may cancel its own sessions; IF EXISTS: a session already gone has no transaction left to end.
	private static final String CANCEL = "CANCEL SESSION IF EXISTS ?";

	private final JdbcClient jdbc;

	private final SessionEnd how;

	public SessionEnder(DataSource dataSource, SessionEnd how) {
		this.jdbc = JdbcClient.create(dataSource);
		this.how = how;
	}

	/** What identifies the session of {@code connection} for {@link #end}; read when its transaction starts. */
	public Object identify(Connection connection) throws SQLException {
		return switch (this.how) {
			case TERMINATE_BACKEND -> PostgresConnections.backendPid(connection);
			case CANCEL_SESSION -> {
				try (Statement statement = connection.createStatement();
						ResultSet result = statement.executeQuery("SHOW session_id")) {
					result.next();
					yield result.getString(1);
				}
			}
			case CLOSE_CONNECTION -> physical(connection);
		};
	}

	/**
	 * Ends the session {@code session} ({@link #identify}) from another connection or thread.
	 * @return whether it was ended (or was gone already), so that its transaction can no longer commit
	 */
	public boolean end(Object session) throws SQLException {
		switch (this.how) {
			case TERMINATE_BACKEND -> {
				return Boolean.TRUE.equals(
						this.jdbc.sql(TERMINATE).param(1, session).query(Boolean.class).single());
			}
			case CANCEL_SESSION -> {
				this.jdbc.sql(CANCEL).param(1, session).update();
				return true;
			}
			default -> {
				((Connection) session).abort(Runnable::run);
				return true;
			}
		}
	}

	/** The driver's connection under a pool's proxy (HikariCP unwraps to it): closing the proxy only hands it back. */
	private static Connection physical(Connection connection) throws SQLException {
		return connection.unwrap(Connection.class);
	}

}
