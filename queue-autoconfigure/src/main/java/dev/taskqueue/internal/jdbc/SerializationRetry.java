package dev.taskqueue.internal.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs again what the database rolled back as a serialization failure (SQLSTATE {@code 40001}, which CockroachDB and
 * YugabyteDB return routinely and PostgreSQL at SERIALIZABLE or REPEATABLE READ) or as a deadlock ({@code 40P01}):
 * up to {@code maxAttempts} times in all, after a jittered exponential backoff (a random wait between half and all
 * of {@code initialDelay × 2^(retry − 1)}, at most {@code maxDelay}). Every statement and transaction TaskQueue runs
 * on its own goes through here ({@link #transactions}); the last failure propagates as it was.
 * <p>
 * Only work that is a transaction of its own is run again: inside a transaction that was already active (the
 * caller's), the failure has aborted that whole transaction, which only its owner can run again.
 */
public final class SerializationRetry {

	private static final SerializationRetry NONE = new SerializationRetry(1, Duration.ZERO, Duration.ZERO);

	private final int maxAttempts;

	private final Duration initialDelay;

	private final Duration maxDelay;

	private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

	/**
	 * @param maxAttempts how often work is tried in all, at least 1
	 * @param initialDelay the wait before the first retry (up to half less, at random)
	 * @param maxDelay the longest wait before a retry
	 */
	public SerializationRetry(int maxAttempts, Duration initialDelay, Duration maxDelay) {
		this.maxAttempts = Math.max(1, maxAttempts);
		this.initialDelay = initialDelay;
		this.maxDelay = maxDelay;
	}

	/** Runs everything once. */
	public static SerializationRetry none() {
		return NONE;
	}

	/** Calls {@code listener} with the operation's name before each retry (the metrics count them). */
	public void onRetry(Consumer<String> listener) {
		this.listeners.add(listener);
	}

	/** {@code transactions} whose every transaction (or statement, without one) is retried as {@code operation}. */
	public TransactionOperations transactions(String operation, TransactionOperations transactions) {
		return new TransactionOperations() {

			@Override
			public <T> @Nullable T execute(TransactionCallback<T> action) throws TransactionException {
				return run(operation, () -> transactions.execute(action));
			}

		};
	}

	/** Runs {@code work}, again after a serialization failure while attempts are left. */
	public <T> T run(String operation, Supplier<T> work) {
		boolean joined = TransactionSynchronizationManager.isActualTransactionActive();
		for (int attempt = 1;; attempt++) {
			try {
				return work.get();
			}
			catch (RuntimeException ex) {
				if (joined || !retryAfter(operation, ex, attempt)) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Whether work that failed with {@code failure} on its {@code attempt}th try runs again: it does when the failure
	 * is a serialization failure and attempts are left, after the backoff (this waits it out).
	 */
	public boolean retryAfter(String operation, Throwable failure, int attempt) {
		if (attempt >= this.maxAttempts || !isSerializationFailure(failure)) {
			return false;
		}
		long cap = Math.min(this.maxDelay.toNanos(), this.initialDelay.toNanos() << Math.min(attempt - 1, 30));
		long wait = (cap > 1) ? cap / 2 + ThreadLocalRandom.current().nextLong(cap / 2 + 1) : 0;
		try {
			TimeUnit.NANOSECONDS.sleep(wait);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt(); // stopping: the failure propagates
			return false;
		}
		this.listeners.forEach((listener) -> listener.accept(operation));
		return true;
	}

	/** Whether {@code failure} or a cause of it is an SQL serialization failure or deadlock. */
	public static boolean isSerializationFailure(@Nullable Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql) {
				for (SQLException next = sql; next != null; next = next.getNextException()) {
					String state = next.getSQLState();
					if ("40001".equals(state) || "40P01".equals(state)) {
						return true;
					}
				}
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

}
