package dev.taskqueue.test;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition that other threads or processes make true.
 */
public final class Await {

	private Await() {
	}

	/** Polls {@code condition} until it holds; fails with {@code what} after {@code timeout}. */
	public static void until(String what, Duration timeout, BooleanSupplier condition) {
		until(() -> what, timeout, condition);
	}

	/** {@link #until(String, Duration, BooleanSupplier)} whose {@code what} says where things stood at the end. */
	public static void until(Supplier<String> what, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out after " + timeout + " waiting until " + what.get());
			}
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted waiting until " + what.get(), ex);
			}
		}
	}

}
