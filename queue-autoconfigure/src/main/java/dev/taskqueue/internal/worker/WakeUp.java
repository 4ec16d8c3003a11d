package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A signal that wakes the claim loop early. A signal given while the loop is busy is kept, so it is never lost.
 */
final class WakeUp {

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition signalled = this.lock.newCondition();

	private volatile boolean pending;

	void signal() {
		if (this.pending) {
			return; // the loop has not taken the last signal yet: it will look anyway
		}
		this.lock.lock();
		try {
			this.pending = true;
			this.signalled.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Waits for a signal or until {@code timeout} has passed, and consumes the signal. */
	void await(Duration timeout) throws InterruptedException {
		long nanos = timeout.toNanos();
		this.lock.lock();
		try {
			while (!this.pending && nanos > 0) {
				nanos = this.signalled.awaitNanos(nanos);
			}
			this.pending = false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Waits without consuming anything. */
	static void sleep(Duration duration) throws InterruptedException {
		TimeUnit.NANOSECONDS.sleep(duration.toNanos());
	}

}
