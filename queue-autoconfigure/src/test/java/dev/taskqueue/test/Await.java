package dev.taskqueue.test;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition that other threads or processes make true.
 */
public final class Await {

	private Await() {
	}

	/** Polls {@code condition} until it holds; fails with {@code what} after {@code timeout}. */
	public static void until(String what, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out after " + timeout + " waiting until " + what);
			}
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted waiting until " + what, ex);
			}
		}
	}

}
