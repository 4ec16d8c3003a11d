package dev.taskqueue.benchmark;

import java.util.concurrent.locks.LockSupport;

/**
 * Keeps a producer at a fixed rate: how many tasks are due by now, counted from its creation, so that a producer
 * that fell behind catches up instead of drifting.
 */
final class Pacer {

	private final long start = System.nanoTime();

	private final double perSecond;

	Pacer(double perSecond) {
		this.perSecond = perSecond;
	}

	long startNanos() {
		return this.start;
	}

	/** How many tasks are due at {@code nanoTime}. */
	long dueAt(long nanoTime) {
		return (long) ((nanoTime - this.start) * this.perSecond / 1e9);
	}

	/** Waits until task number {@code seq} (counted from 0) is due. */
	void awaitTurn(long seq) {
		long due = this.start + (long) (seq * 1e9 / this.perSecond);
		for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
			LockSupport.parkNanos(wait);
		}
	}

}
