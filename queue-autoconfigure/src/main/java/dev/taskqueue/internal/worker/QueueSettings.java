package dev.taskqueue.internal.worker;

import java.time.Duration;

import dev.taskqueue.RetryPolicy;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.TaskBuckets;

/**
 * How one queue is run in this instance.
 *
 * @param concurrency how many of its tasks may run at once
 * @param maxAttempts how many times a task is tried, the first run included
 * @param retryPolicy whether and when a failed task is tried again
 * @param timeout how long a handler may run before it is interrupted and its task counted as failed
 * @param groupSize the most tasks committed together by one transaction, each in a savepoint of its own; 1 runs
 * every task in a transaction of its own
 * @param groupMaxDelay how long a group may keep taking tasks before it commits
 * @param limits the queue's cluster-wide limits, {@link QueueLimits#NONE} for none
 * @param buckets how many buckets the queue's tasks are spread over (docs/hash-sharded-claims.md), 1 for one
 */
public record QueueSettings(int concurrency, int maxAttempts, RetryPolicy retryPolicy, Duration timeout,
		int groupSize, Duration groupMaxDelay, QueueLimits limits, int buckets) {

	/** The most tasks in one group: well under the 64 subtransactions PostgreSQL caches per transaction. */
	public static final int MAX_GROUP_SIZE = 32;

	public QueueSettings {
		if (concurrency < 1 || maxAttempts < 1 || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("concurrency and maxAttempts must be at least 1, timeout positive");
		}
		if (groupSize < 1 || groupSize > MAX_GROUP_SIZE || groupMaxDelay.isNegative()) {
			throw new IllegalArgumentException(
					"groupSize must be between 1 and " + MAX_GROUP_SIZE + ", groupMaxDelay not negative");
		}
		if (buckets < 1 || buckets > TaskBuckets.MAX) {
			throw new IllegalArgumentException("buckets must be between 1 and " + TaskBuckets.MAX);
		}
	}

	/** One bucket. */
	public QueueSettings(int concurrency, int maxAttempts, RetryPolicy retryPolicy, Duration timeout, int groupSize,
			Duration groupMaxDelay, QueueLimits limits) {
		this(concurrency, maxAttempts, retryPolicy, timeout, groupSize, groupMaxDelay, limits, 1);
	}

	/** No cluster-wide limits. */
	public QueueSettings(int concurrency, int maxAttempts, RetryPolicy retryPolicy, Duration timeout, int groupSize,
			Duration groupMaxDelay) {
		this(concurrency, maxAttempts, retryPolicy, timeout, groupSize, groupMaxDelay, QueueLimits.NONE);
	}

	/** One task per transaction. */
	public QueueSettings(int concurrency, int maxAttempts, RetryPolicy retryPolicy, Duration timeout) {
		this(concurrency, maxAttempts, retryPolicy, timeout, 1, Duration.ZERO);
	}

}
