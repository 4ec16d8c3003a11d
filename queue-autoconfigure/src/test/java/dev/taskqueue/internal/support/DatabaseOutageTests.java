package dev.taskqueue.internal.support;

import java.sql.SQLException;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which failures count as the database being out of reach.
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

}
