package dev.taskqueue.benchmark;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * What the handlers of one worker instance report: how many ran, when the worker started and, for tasks numbered
 * below {@code recorded}, when each handler started.
 */
final class Probe {

	/** How long a wait goes on without a single handler run before it gives up. */
	static final Duration STALL_TIMEOUT = Duration.ofSeconds(60);

	private final AtomicLong handled = new AtomicLong();

	private final AtomicLongArray startNanos;

	private volatile long workerStartNanos;

	private volatile long workerStartCpuNanos;

	Probe() {
		this(0);
	}

	Probe(int recorded) {
		this.startNanos = new AtomicLongArray(recorded);
	}

	void handlerStarted(BenchTask task) {
		if (task.seq() < this.startNanos.length()) {
			this.startNanos.set((int) task.seq(), System.nanoTime());
		}
		this.handled.incrementAndGet();
	}

	void workerStarting() {
		this.workerStartCpuNanos = Timing.otherThreadsCpuNow();
		this.workerStartNanos = System.nanoTime();
	}

	/**
	 * From the start of the worker until {@code endNanos}, and the CPU used since then by threads other than the
	 * caller, which must be the thread that started the worker instance.
	 */
	Timing sinceWorkerStart(long endNanos) {
		return new Timing(endNanos - this.workerStartNanos,
				Timing.otherThreadsCpuNow() - this.workerStartCpuNanos);
	}

	long handled() {
		return this.handled.get();
	}

	/** When the handler of task {@code seq} started ({@link System#nanoTime()}), or 0 if it has not. */
	long startNanos(int seq) {
		return this.startNanos.get(seq);
	}

	/**
	 * Waits until {@code count} handlers have run and returns the {@link System#nanoTime()} at which that was seen.
	 * @throws IllegalStateException when no handler ran for {@link #STALL_TIMEOUT}
	 */
	long awaitHandled(long count) {
		long last = -1;
		long lastProgress = System.nanoTime();
		while (true) {
			long now = System.nanoTime();
			long seen = this.handled.get();
			if (seen >= count) {
				return now;
			}
			if (seen != last) {
				last = seen;
				lastProgress = now;
			}
			else if (now - lastProgress > STALL_TIMEOUT.toNanos()) {
				throw new IllegalStateException("Only " + seen + " of " + count + " handlers ran, none in the last "
						+ STALL_TIMEOUT.toSeconds() + " s");
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
	}

}
