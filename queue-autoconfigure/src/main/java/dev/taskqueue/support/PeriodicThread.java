package dev.taskqueue.support;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * One daemon thread that runs a piece of work at a fixed delay, for the lifecycles that keep the database tidy or
 * read it in the background (gauges, retention). It can be started again after it was stopped.
 */
public final class PeriodicThread {

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
	 * closes; a run still going after {@link ExecutorShutdown#GRACE} is interrupted.
	 */
	public void stop() {
		ScheduledExecutorService stopping;
		synchronized (this) {
			stopping = this.executor;
			this.executor = null;
		}
		if (stopping != null) {
			ExecutorShutdown.afterRunUnderWay(stopping, ExecutorShutdown.GRACE);
		}
	}

	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
