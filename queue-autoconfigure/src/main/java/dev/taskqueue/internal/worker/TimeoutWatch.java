package dev.taskqueue.internal.worker;

import java.util.Collection;
import java.util.concurrent.locks.LockSupport;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.jspecify.annotations.Nullable;

/**
 * Watches the handlers' timeouts with one thread that sleeps until the earliest deadline. A handler that starts
 * only writes its deadline; it wakes the watch only when that deadline is earlier than the one the watch sleeps
 * towards, which with one timeout per queue is rare. Scheduling and cancelling a timer per task instead cost a lock,
 * a heap operation and often a thread wake-up per task, a large share of a no-op handler's cost.
 */
final class TimeoutWatch implements Runnable {

	private static final Log logger = LogFactory.getLog(TimeoutWatch.class);

	/** A runner's deadline while no handler of it runs. */
	static final long NONE = Long.MAX_VALUE;

	private final Collection<? extends Watched> runners;

	/** The deadline the watch sleeps towards, {@link #NONE} while it sleeps until woken. */
	private volatile long wakeAt = NONE;

	private volatile boolean stopped;

	private volatile @Nullable Thread thread;

	/** @param runners the handler threads alive, a concurrent collection the executor keeps */
	TimeoutWatch(Collection<? extends Watched> runners) {
		this.runners = runners;
	}

	void start() {
		Thread watch = Threads.named("tq-timeout-", true).newThread(this);
		this.thread = watch;
		watch.start();
	}

	/** A handler started with {@code deadline} ({@link System#nanoTime()}): wakes the watch if it sleeps longer. */
	void started(long deadline) {
		if (this.wakeAt == NONE || deadline - this.wakeAt < 0) {
			LockSupport.unpark(this.thread);
		}
	}

	void stop() {
		this.stopped = true;
		LockSupport.unpark(this.thread);
	}

	@Override
	public void run() {
		while (!this.stopped) {
			long next = expireAndFindNext();
			// Publish the wake time, then look again: a handler that started meanwhile either sees the new wake time
			// (and wakes the watch if its deadline is earlier) or is seen by the second look.
			this.wakeAt = next;
			long again = expireAndFindNext();
			if (earlier(again, next)) {
				continue;
			}
			if (next == NONE) {
				LockSupport.park(this);
			}
			else {
				LockSupport.parkNanos(this, next - System.nanoTime());
			}
			Thread.interrupted(); // only stop() ends the watch
		}
	}

	/** Times out the handlers past their deadline; the earliest deadline still to come, or {@link #NONE}. */
	private long expireAndFindNext() {
		long now = System.nanoTime();
		long next = NONE;
		for (Watched runner : this.runners) {
			long deadline = runner.deadline();
			if (deadline == NONE) {
				continue;
			}
			if (deadline - now <= 0) {
				timeOut(runner, deadline);
			}
			else if (earlier(deadline, next)) {
				next = deadline;
			}
		}
		return next;
	}

	/** Times {@code runner} out; whatever that throws must not end the only thread that watches timeouts. */
	private static void timeOut(Watched runner, long deadline) {
		try {
			runner.timeOutIfDue(deadline);
		}
		catch (Throwable ex) {
			logger.error("TaskQueue could not time out a handler; the timeout watch goes on", ex);
		}
	}

	private static boolean earlier(long deadline, long than) {
		return than == NONE ? deadline != NONE : deadline != NONE && deadline - than < 0;
	}

	/** What runs handlers under a deadline: a handler thread. */
	interface Watched {

		/** When the running handler times out ({@link System#nanoTime()}), {@link #NONE} when none runs. */
		long deadline();

		/** Called once {@code deadline} has passed: times the handler out unless it finished meanwhile. */
		void timeOutIfDue(long deadline);

	}

}
