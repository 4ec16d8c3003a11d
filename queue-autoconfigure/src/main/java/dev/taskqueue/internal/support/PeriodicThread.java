package dev.taskqueue.internal.support;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * One daemon thread that runs a piece of work at a fixed delay, for the lifecycles that keep the database tidy or
 * read it in the background (gauges, retention, the worker's heartbeat). It can be started again after it was
 * stopped.
 * <p>
 * Stopping waits for the run under way: an interrupt does not end a JDBC read, so stopping without waiting let the
 * application close its connection pool under the statement, which the pool then aborted, and a clean shutdown
 * logged a failed statement (seen in CI: the gauges' refresh, "Socket closed").
 */
public final class PeriodicThread {

	/** How long a run under way may take to finish, once stopped, before it is interrupted. */
	static final Duration GRACE = Duration.ofSeconds(5);

	private final String name;

	private final Duration initialDelay;

	private final Duration interval;

	private final Runnable work;

	private @Nullable ScheduledExecutorService executor;

	public PeriodicThread(String name, Duration initialDelay, Duration interval, Runnable work) {
		this.name = name;
		this.initialDelay = initialDelay;
		this.interval = interval;
		this.work = work;
	}

	public synchronized void start() {
		if (this.executor != null) {
			return;
		}
		this.executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, this.name);
			thread.setDaemon(true);
			return thread;
		});
		this.executor.scheduleWithFixedDelay(this.work, this.initialDelay.toMillis(), this.interval.toMillis(),
				TimeUnit.MILLISECONDS);
	}

	/**
	 * Stops the thread after the run under way, if any, so that its statement ends before the connection pool
	 * closes; a run still going after {@link #GRACE} is interrupted.
	 */
	public void stop() {
		ScheduledExecutorService stopping;
		synchronized (this) {
			stopping = this.executor;
			this.executor = null;
		}
		if (stopping != null) {
			stopAfterRunUnderWay(stopping, GRACE);
		}
	}

	/**
	 * Cancels what is scheduled, waits up to {@code grace} for the run under way and interrupts it only if it is
	 * still going after that.
	 * @return whether the executor finished within {@code grace}
	 */
	static boolean stopAfterRunUnderWay(ExecutorService executor, Duration grace) {
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

	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
