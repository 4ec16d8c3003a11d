package dev.taskqueue.worker;

import java.time.Duration;

/**
 * How one queue is run in this instance.
 *
 * @param concurrency how many of its tasks may run at once
 * @param maxAttempts how many times a task is tried, the first run included
 * @param retryPolicy how long a failed task waits before its next attempt
 * @param timeout how long a handler may run before it is interrupted and its task counted as failed
 */
public record QueueSettings(int concurrency, int maxAttempts, RetryPolicy retryPolicy, Duration timeout) {

	public QueueSettings {
		if (concurrency < 1 || maxAttempts < 1 || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("concurrency and maxAttempts must be at least 1, timeout positive");
		}
	}

}
