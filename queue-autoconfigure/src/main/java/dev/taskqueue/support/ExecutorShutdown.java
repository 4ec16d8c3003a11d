package dev.taskqueue.support;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Stops the background threads that talk to the database only once their statement under way has ended. An
 * interrupt does not end a JDBC read: stopping without waiting let the application close its connection pool
 * under the statement, which the pool then aborted, and a clean shutdown logged a failed statement (seen in CI:
 * the gauges' refresh, "Socket closed").
 */
public final class ExecutorShutdown {

	/** How long a run under way may take to finish before it is interrupted. */
	public static final Duration GRACE = Duration.ofSeconds(5);

	private ExecutorShutdown() {
	}

	/**
	 * Cancels what is scheduled, waits up to {@code grace} for the run under way and interrupts it only if it is
	 * still going after that.
	 * @param executor the executor to stop
	 * @param grace how long the run under way may take
	 * @return whether the executor finished within {@code grace}
	 */
	public static boolean afterRunUnderWay(ExecutorService executor, Duration grace) {
		executor.shutdown(); // a ScheduledThreadPoolExecutor drops its periodic tasks here
		try {
			if (executor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
				return true;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		executor.shutdownNow();
		return false;
	}

}
