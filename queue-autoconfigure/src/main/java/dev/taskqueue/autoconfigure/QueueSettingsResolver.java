package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.taskqueue.RetryPolicy;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.TaskBuckets;
import dev.taskqueue.internal.support.StartupFailure;
import dev.taskqueue.internal.worker.QueueSettings;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Works out each queue's settings: {@code taskqueue.queues.<name>.*} wins over the {@code @TaskHandler}
 * attribute, which wins over the defaults of {@code taskqueue.worker.*} and {@code taskqueue.retry.*}.
 */
final class QueueSettingsResolver {

	private QueueSettingsResolver() {
	}

	/** The cluster-wide limits of each queue that has some, by queue name. */
	static Map<String, QueueLimits> limits(TaskQueueProperties properties) {
		Map<String, QueueLimits> limits = new LinkedHashMap<>();
		properties.getQueues().forEach((name, queue) -> {
			QueueLimits queueLimits = RateLimitProperties.limits(queue.getGlobalConcurrency(), queue.getRateLimit());
			if (queueLimits.any()) {
				limits.put(name, queueLimits);
			}
		});
		return limits;
	}

	/**
	 * The bucket count of each queue, for the inserts of new tasks and the claims: a queue's own, else
	 * {@code defaultCount} (the database's, see {@code Database#defaultBuckets}).
	 */
	static TaskBuckets buckets(TaskQueueProperties properties, int defaultCount) {
		Map<String, Integer> buckets = new LinkedHashMap<>();
		properties.getQueues().forEach((name, queue) -> {
			if (queue.getBuckets() != null) {
				buckets.put(name, queue.getBuckets());
			}
		});
		return (buckets.isEmpty() && defaultCount == 1) ? TaskBuckets.NONE : new TaskBuckets(buckets, defaultCount);
	}

	/** The default retry policy: exponential backoff from {@code taskqueue.retry.backoff.*}. */
	static RetryPolicy defaultRetryPolicy(TaskQueueProperties properties) {
		RetryProperties.Backoff backoff = properties.getRetry().getBackoff();
		return RetryPolicy.exponentialBackoff(backoff.getInitialDelay(), backoff.getMultiplier(),
				backoff.getMaxDelay(), backoff.getJitter());
	}

	/**
	 * The settings of {@code handler}'s queue.
	 * @throws IllegalStateException if the queue commits groups and the transaction manager cannot
	 */
	static QueueSettings resolve(TaskQueueProperties properties, TaskHandlerMethod handler,
			PlatformTransactionManager transactionManager, TaskBuckets buckets, RetryPolicies retryPolicies) {
		QueueProperties queue = properties.getQueues().get(handler.queue());
		int concurrency = (queue != null && queue.getConcurrency() != null) ? queue.getConcurrency()
				: (handler.concurrency() > 0) ? handler.concurrency() : properties.getWorker().getConcurrency();
		int maxAttempts = (queue != null && queue.getMaxAttempts() != null) ? queue.getMaxAttempts()
				: (handler.maxAttempts() > 0) ? handler.maxAttempts() : properties.getRetry().getMaxAttempts();
		RetryPolicy retryPolicy = retryPolicies.of(handler);
		Duration timeout = (queue != null && queue.getTimeout() != null) ? queue.getTimeout()
				: properties.getWorker().getTimeout();
		Integer queueGroupSize = (queue != null) ? queue.getGroupCommitSize() : null;
		int groupSize = handler.batchedCompletion() ? 1
				: (queueGroupSize != null) ? queueGroupSize : properties.getWorker().getGroupCommitSize();
		if (groupSize > 1 && !(transactionManager instanceof DataSourceTransactionManager)) {
			String property = (queueGroupSize != null) ? "taskqueue.queues." + handler.queue() + ".group-commit-size"
					: "taskqueue.worker.group-commit-size";
			throw new StartupFailure("Queue '" + handler.queue() + "' is set to commit groups of "
					+ groupSize + " tasks (" + property + "), each task in a savepoint, which needs a "
					+ "DataSourceTransactionManager or JdbcTransactionManager; the application's is a "
					+ transactionManager.getClass().getName() + ", whose savepoints, if any, do not undo what "
					+ "a failed task left in a persistence context. Set " + property + " to 1",
					"Set " + property + " to 1.");
		}
		QueueLimits limits = (queue != null) ? RateLimitProperties.limits(queue.getGlobalConcurrency(),
				queue.getRateLimit()) : QueueLimits.NONE;
		return new QueueSettings(concurrency, maxAttempts, retryPolicy, timeout, groupSize,
				properties.getWorker().getGroupCommitMaxDelay(), limits, buckets.count(handler.queue()));
	}

}
