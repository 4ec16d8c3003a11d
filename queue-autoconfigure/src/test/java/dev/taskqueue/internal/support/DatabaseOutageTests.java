package dev.taskqueue.internal.support;

import java.sql.SQLException;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which failures count as the database being out of reach, and which successes end an outage.
 */
class DatabaseOutageTests {

	@Test
	void aFailedRollbackAfterTheServerWentAwayIsAnOutage() {
		// What a background loop's transaction throws when the server is shut down under it: the rollback fails too,
		// and the server's failure is only the application exception of Spring's TransactionSystemException.
		TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed",
				new SQLException("Cannot rollback when autoCommit is enabled."));
		rollback.initApplicationException(new UncategorizedSQLException("look", "SELECT 1",
				new SQLException("FATAL: terminating connection due to administrator command", "57P01")));
		assertThat(DatabaseOutage.unreachable(rollback)).isTrue();
	}

	@Test
	void otherFailuresAreNot() {
		TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed",
				new SQLException("Cannot rollback when autoCommit is enabled."));
		assertThat(DatabaseOutage.unreachable(rollback)).isFalse();
		rollback.initApplicationException(new IllegalStateException("a bug"));
		assertThat(DatabaseOutage.unreachable(rollback)).isFalse();
		assertThat(DatabaseOutage.unreachable(new SQLException("relation does not exist", "42P01"))).isFalse();
		assertThat(DatabaseOutage.unreachable(new SQLException("connection refused", "08001"))).isTrue();
	}

	@Test
	void onlyATryBegunAfterTheOutageWasNoticedEndsIt() {
		// The race CI met: a heartbeat sent just before the server went away answered after the listener had seen
		// its connection drop; taking that answer for "back" made the next failed statement a second WARN line.
		DatabaseOutage outage = new DatabaseOutage();
		long before = System.nanoTime();
		assertThat(outage.failed("listen for enqueues",
				new SQLException("FATAL: terminating connection due to administrator command", "57P01")))
			.isTrue();
		outage.succeeded(before);
		assertThat(outage.isDown()).as("a try begun before the outage was noticed").isTrue();
		outage.succeeded(System.nanoTime());
		assertThat(outage.isDown()).as("a try begun after it").isFalse();
	}

}
