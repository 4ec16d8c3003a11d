package dev.taskqueue.actuate;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Runs the health indicator's database reads on a thread of its own and waits for them at most {@code timeout}.
 * A connection pool waits up to its connection timeout (Hikari: 30 s) for a connection, so a check on the caller's
 * thread would read UP through a shorter outage, or not answer before the probe gives up. A check still waiting is
 * shared by the calls that come meanwhile, so an outage blocks one thread, not one per call.
 */
final class HealthCheckTimeout<T> implements AutoCloseable {

	private final Duration timeout;

	private final ExecutorService executor = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "taskqueue-health");
		thread.setDaemon(true); // a check stuck on the network must not keep the JVM up
		return thread;
	});

	private @Nullable CompletableFuture<T> running;

	private long runningSince;

	HealthCheckTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	/**
	 * The result of {@code check}, or the exception that explains why there is none.
	 * @throws TimeoutException when the check has been running for longer than the timeout
	 * @throws Exception what the check threw
	 */
	T get(Supplier<T> check) throws Exception {
		CompletableFuture<T> future;
		long waitNanos;
		synchronized (this) {
			if (this.running == null || this.running.isDone()) {
				this.running = CompletableFuture.supplyAsync(check, this.executor);
				this.runningSince = System.nanoTime();
			}
			future = this.running;
			waitNanos = this.timeout.toNanos() - (System.nanoTime() - this.runningSince);
		}
		try {
			return future.get(Math.max(waitNanos, 0), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			throw (cause instanceof Exception exception) ? exception : ex;
		}
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * What a failure was, in a few words and without its message: Spring's JDBC exceptions carry the statement's
	 * SQL, and PostgreSQL's messages name tables, neither of which belongs on an often-public health page.
	 */
	static String describe(Throwable failure) {
		String state = null;
		for (Throwable cause = failure; cause != null && state == null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql) {
				state = sql.getSQLState();
			}
		}
		String type = failure.getClass().getSimpleName();
		return (state != null) ? type + " (SQLSTATE " + state + ")" : type;
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
	}

}
