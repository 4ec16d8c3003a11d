package dev.taskqueue.internal.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What {@link SerializationRetry} runs again: serialization failures and deadlocks, wherever they are in the cause
 * chain, up to the attempts allowed, never inside a transaction it did not start.
 */
class SerializationRetryTests {

	private final SerializationRetry retry = new SerializationRetry(3, Duration.ofMillis(1), Duration.ofMillis(2));

	private final List<String> retried = new ArrayList<>();

	SerializationRetryTests() {
		this.retry.onRetry(this.retried::add);
	}

	@Test
	void runsASerializationFailureAgainUntilItSucceeds() {
		AtomicInteger tries = new AtomicInteger();
		String result = this.retry.transactions("claim", TransactionOperations.withoutTransaction())
			.execute((status) -> {
				if (tries.incrementAndGet() < 3) {
					throw failure("40001");
				}
				return "done";
			});
		assertThat(result).isEqualTo("done");
		assertThat(this.retried).containsExactly("claim", "claim");
	}

	@Test
	void givesUpAfterTheAttemptsAllowedWithTheLastFailure() {
		AtomicInteger tries = new AtomicInteger();
		assertThatExceptionOfType(CannotAcquireLockException.class).isThrownBy(() -> this.retry.run("outcome", () -> {
			tries.incrementAndGet();
			throw failure("40P01");
		}));
		assertThat(tries).hasValue(3);
		assertThat(this.retried).containsExactly("outcome", "outcome");
	}

	@Test
	void leavesOtherFailuresAlone() {
		AtomicInteger tries = new AtomicInteger();
		assertThatExceptionOfType(CannotAcquireLockException.class).isThrownBy(() -> this.retry.run("claim", () -> {
			tries.incrementAndGet();
			throw failure("55P03"); // lock_not_available: not a serialization failure
		}));
		assertThat(tries).hasValue(1);
		assertThat(this.retried).isEmpty();
	}

	@Test
	void neverRunsAgainInsideATransactionItJoined() {
		AtomicInteger tries = new AtomicInteger();
		TransactionSynchronizationManager.setActualTransactionActive(true);
		try {
			assertThatExceptionOfType(CannotAcquireLockException.class)
				.isThrownBy(() -> this.retry.run("claim", () -> {
					tries.incrementAndGet();
					throw failure("40001");
				}));
		}
		finally {
			TransactionSynchronizationManager.setActualTransactionActive(false);
		}
		assertThat(tries).hasValue(1);
	}

	@Test
	void findsTheStateInTheCauseChainAndInNextExceptions() {
		SQLException batch = new SQLException("batch failed", "XX000");
		batch.setNextException(new SQLException("could not serialize", "40001"));
		assertThat(SerializationRetry.isSerializationFailure(new IllegalStateException(batch))).isTrue();
		assertThat(SerializationRetry.isSerializationFailure(new IllegalStateException("no SQL"))).isFalse();
		assertThat(SerializationRetry.isSerializationFailure(null)).isFalse();
	}

	@Test
	void noneRunsOnce() {
		AtomicInteger tries = new AtomicInteger();
		assertThatExceptionOfType(CannotAcquireLockException.class)
			.isThrownBy(() -> SerializationRetry.none().run("claim", () -> {
				tries.incrementAndGet();
				throw failure("40001");
			}));
		assertThat(tries).hasValue(1);
	}

	private static CannotAcquireLockException failure(String sqlState) {
		return new CannotAcquireLockException("translated", new SQLException("failed", sqlState));
	}

}
