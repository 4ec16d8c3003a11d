package dev.taskqueue.worker;

/**
 * How one queue is run in this instance.
 *
 * @param concurrency how many of its tasks may run at once
 * @param maxAttempts how many times a task is tried, the first run included
 * @param retryPolicy how long a failed task waits before its next attempt
 */
public record QueueSettings(int concurrency, int maxAttempts, RetryPolicy retryPolicy) {

	public QueueSettings {
		if (concurrency < 1 || maxAttempts < 1) {
			throw new IllegalArgumentException("concurrency and maxAttempts must be at least 1");
		}
	}

}
