package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import dev.taskqueue.QueueName;
import dev.taskqueue.jdbc.TaskTables;
import dev.taskqueue.worker.QueueSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Configuration of TaskQueue, under {@code taskqueue}. Values are checked as they are bound, so a bad one stops
 * the application with a message that names the property.
 */
@ConfigurationProperties("taskqueue")
public class TaskQueueProperties implements InitializingBean {

	private static final Pattern CANONICAL_KEY = Pattern.compile("[a-z0-9-]+");

	/**
	 * Whether TaskQueue is configured at all.
	 */
	private boolean enabled = true;

	private final Schema schema = new Schema();

	private final Worker worker = new Worker();

	private final Retry retry = new Retry();

	private final Notify notify = new Notify();

	private final Metrics metrics = new Metrics();

	private final Retention retention = new Retention();

	private final History history = new History();

	@NestedConfigurationProperty
	private final DashboardProperties dashboard = new DashboardProperties();

	/**
	 * Settings per queue, keyed by queue name (concurrency, max-attempts, timeout); they take precedence over the
	 * handler's annotation attributes. Names with dots or colons need brackets: taskqueue.queues[billing.v2].
	 */
	private final Map<String, Queue> queues = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Schema getSchema() {
		return this.schema;
	}

	public Worker getWorker() {
		return this.worker;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Notify getNotify() {
		return this.notify;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Retention getRetention() {
		return this.retention;
	}

	public History getHistory() {
		return this.history;
	}

	public DashboardProperties getDashboard() {
		return this.dashboard;
	}

	public Map<String, Queue> getQueues() {
		return this.queues;
	}

	@Override
	public void afterPropertiesSet() {
		this.queues.forEach((name, queue) -> {
			QueueName.requireValid(name, "taskqueue.queues key");
			// Checked here rather than in the setters, which cannot know the queue the value belongs to.
			String property = "taskqueue.queues"
					+ (CANONICAL_KEY.matcher(name).matches() ? "." + name : "[" + name + "]");
			if (queue.concurrency != null) {
				requirePositive(queue.concurrency, property + ".concurrency");
			}
			if (queue.maxAttempts != null) {
				requirePositive(queue.maxAttempts, property + ".max-attempts");
			}
			if (queue.timeout != null) {
				requirePositive(queue.timeout, property + ".timeout");
			}
			if (queue.groupCommitSize != null) {
				requireGroupSize(queue.groupCommitSize, property + ".group-commit-size");
			}
		});
		if (this.worker.heartbeatInterval.compareTo(this.worker.sessionTimeout) >= 0) {
			throw new IllegalArgumentException("taskqueue.worker.heartbeat-interval (" + this.worker.heartbeatInterval
					+ ") must be shorter than taskqueue.worker.session-timeout (" + this.worker.sessionTimeout + ")");
		}
	}

	public static class Schema {

		/**
		 * Whether TaskQueue applies its own Flyway migrations at startup; turn off to apply the shipped SQL yourself.
		 */
		private boolean migrate = true;

		/**
		 * Database schema that holds the TaskQueue tables; empty means the connection's current schema.
		 */
		private @Nullable String name;

		public boolean isMigrate() {
			return this.migrate;
		}

		public void setMigrate(boolean migrate) {
			this.migrate = migrate;
		}

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			try {
				this.name = TaskTables.inSchema(name).schema();
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("taskqueue.schema.name must be a plain SQL identifier "
						+ "(a letter or '_', then letters, digits or '_', at most 63) but was '" + name + "'");
			}
		}

	}

	public static class Worker {

		/**
		 * Whether this instance runs handlers; when off it can still enqueue.
		 */
		private boolean enabled = true;

		/**
		 * How many tasks of one queue may run at once in this instance, unless the queue sets its own.
		 */
		private int concurrency = 4;

		/**
		 * How long a worker waits before looking for ready tasks again after finding none.
		 */
		private Duration pollInterval = Duration.ofMillis(500);

		/**
		 * How often this instance proves it is alive and looks for sessions that are not.
		 */
		private Duration heartbeatInterval = Duration.ofSeconds(5);

		/**
		 * How long a session may go without a heartbeat before other instances release its tasks.
		 */
		private Duration sessionTimeout = Duration.ofSeconds(30);

		/**
		 * How long shutdown waits, in all, for running handlers to finish and waiting completions to be written; then
		 * it interrupts what is left.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(30);

		/**
		 * How long a handler may run before it is interrupted and its task counted as failed, unless the queue
		 * sets its own.
		 */
		private Duration timeout = Duration.ofMinutes(10);

		/**
		 * The most completions of BATCHED handlers written by one statement.
		 */
		private int completionBatchSize = 100;

		/**
		 * How long a completion of a BATCHED handler waits for others before it is written.
		 */
		private Duration completionFlushInterval = Duration.ofMillis(5);

		/**
		 * The most tasks a queue holds claimed beyond those its threads run. While handlers are quick, a queue
		 * claims ahead what its threads finish in about 10 ms, so that claims are large and a thread that finishes
		 * finds its next task at hand; queues whose handlers take 50 ms or more claim only what they start. 0 claims
		 * only what runs.
		 */
		private int maxPrefetch = 512;

		/**
		 * The most tasks of a TRANSACTIONAL queue committed together by one transaction, each handler in a
		 * savepoint of its own, unless the queue sets its own. 1 (the default) gives every task a
		 * transaction of its own; at most 32. Needs a DataSourceTransactionManager (or JdbcTransactionManager).
		 */
		private int groupCommitSize = 1;

		/**
		 * How long a group of tasks may keep taking tasks before it commits. A group also commits as soon as no
		 * claimed task is waiting.
		 */
		private Duration groupCommitMaxDelay = Duration.ofMillis(20);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = requirePositive(concurrency, "taskqueue.worker.concurrency");
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = requirePositive(pollInterval, "taskqueue.worker.poll-interval");
		}

		public Duration getHeartbeatInterval() {
			return this.heartbeatInterval;
		}

		public void setHeartbeatInterval(Duration heartbeatInterval) {
			this.heartbeatInterval = requirePositive(heartbeatInterval, "taskqueue.worker.heartbeat-interval");
		}

		public Duration getSessionTimeout() {
			return this.sessionTimeout;
		}

		public void setSessionTimeout(Duration sessionTimeout) {
			this.sessionTimeout = requirePositive(sessionTimeout, "taskqueue.worker.session-timeout");
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = requireNotNegative(shutdownTimeout, "taskqueue.worker.shutdown-timeout");
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = requirePositive(timeout, "taskqueue.worker.timeout");
		}

		public int getCompletionBatchSize() {
			return this.completionBatchSize;
		}

		public void setCompletionBatchSize(int completionBatchSize) {
			this.completionBatchSize = requirePositive(completionBatchSize, "taskqueue.worker.completion-batch-size");
		}

		public int getGroupCommitSize() {
			return this.groupCommitSize;
		}

		public void setGroupCommitSize(int groupCommitSize) {
			this.groupCommitSize = requireGroupSize(groupCommitSize, "taskqueue.worker.group-commit-size");
		}

		public Duration getGroupCommitMaxDelay() {
			return this.groupCommitMaxDelay;
		}

		public void setGroupCommitMaxDelay(Duration groupCommitMaxDelay) {
			this.groupCommitMaxDelay = requireNotNegative(groupCommitMaxDelay,
					"taskqueue.worker.group-commit-max-delay");
		}

		public int getMaxPrefetch() {
			return this.maxPrefetch;
		}

		public void setMaxPrefetch(int maxPrefetch) {
			if (maxPrefetch < 0) {
				throw new IllegalArgumentException(
						"taskqueue.worker.max-prefetch must be at least 0 but was " + maxPrefetch);
			}
			this.maxPrefetch = maxPrefetch;
		}

		public Duration getCompletionFlushInterval() {
			return this.completionFlushInterval;
		}

		public void setCompletionFlushInterval(Duration completionFlushInterval) {
			this.completionFlushInterval = requirePositive(completionFlushInterval,
					"taskqueue.worker.completion-flush-interval");
		}

	}

	public static class Notify {

		/**
		 * Whether enqueues send a PostgreSQL NOTIFY and workers LISTEN for it, to start new tasks without waiting
		 * for the next poll; turn off behind PgBouncer in transaction pooling mode.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	public static class Retry {

		/**
		 * How many times a task is tried, the first run included, before it goes to the dead letters.
		 */
		private int maxAttempts = 5;

		private final Backoff backoff = new Backoff();

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = requirePositive(maxAttempts, "taskqueue.retry.max-attempts");
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

	}

	public static class Backoff {

		/**
		 * Delay before the second attempt.
		 */
		private Duration initialDelay = Duration.ofSeconds(1);

		/**
		 * Factor by which the delay grows with each further attempt.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest delay between two attempts.
		 */
		private Duration maxDelay = Duration.ofMinutes(10);

		/**
		 * Fraction of each delay, from 0 to 1, taken off at random so that failed tasks do not retry in step.
		 */
		private double jitter = 0.2;

		public Duration getInitialDelay() {
			return this.initialDelay;
		}

		public void setInitialDelay(Duration initialDelay) {
			this.initialDelay = requireNotNegative(initialDelay, "taskqueue.retry.backoff.initial-delay");
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
				throw new IllegalArgumentException(
						"taskqueue.retry.backoff.multiplier must be at least 1 but was " + multiplier);
			}
			this.multiplier = multiplier;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = requireNotNegative(maxDelay, "taskqueue.retry.backoff.max-delay");
		}

		public double getJitter() {
			return this.jitter;
		}

		public void setJitter(double jitter) {
			if (!(jitter >= 0.0 && jitter <= 1.0)) {
				throw new IllegalArgumentException("taskqueue.retry.backoff.jitter must be from 0 to 1 but was " + jitter);
			}
			this.jitter = jitter;
		}

	}

	public static class Metrics {

		/**
		 * How often the queue gauges (ready, scheduled, running, dead, oldest ready age) are read from the database,
		 * with one statement, whatever the number of scrapes.
		 */
		private Duration refreshInterval = Duration.ofSeconds(10);

		/**
		 * Count at which the per-queue counts of the gauges and of the operations API stop counting, so that reading
		 * them stays cheap on a large backlog.
		 */
		private int countLimit = 10_000;

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = requirePositive(refreshInterval, "taskqueue.metrics.refresh-interval");
		}

		public int getCountLimit() {
			return this.countLimit;
		}

		public void setCountLimit(int countLimit) {
			this.countLimit = requirePositive(countLimit, "taskqueue.metrics.count-limit");
		}

	}

	public static class Retention {

		/**
		 * How long a dead letter is kept before it is deleted.
		 */
		private Duration deadLetters = Duration.ofDays(14);

		/**
		 * How long a completed task is kept in the history before it is deleted.
		 */
		private Duration history = Duration.ofDays(7);

		/**
		 * How often each instance deletes, in batches, the dead letters and history rows older than their retention.
		 */
		private Duration pruneInterval = Duration.ofMinutes(1);

		public Duration getDeadLetters() {
			return this.deadLetters;
		}

		public void setDeadLetters(Duration deadLetters) {
			this.deadLetters = requirePositive(deadLetters, "taskqueue.retention.dead-letters");
		}

		public Duration getHistory() {
			return this.history;
		}

		public void setHistory(Duration history) {
			this.history = requirePositive(history, "taskqueue.retention.history");
		}

		public Duration getPruneInterval() {
			return this.pruneInterval;
		}

		public void setPruneInterval(Duration pruneInterval) {
			this.pruneInterval = requirePositive(pruneInterval, "taskqueue.retention.prune-interval");
		}

	}

	public static class History {

		/**
		 * Whether each completed task is also kept in the taskqueue_history table, which slows completions down.
		 */
		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	public static class Queue {

		/**
		 * How many tasks of this queue may run at once in this instance.
		 */
		private @Nullable Integer concurrency;

		/**
		 * How many times a task of this queue is tried, the first run included.
		 */
		private @Nullable Integer maxAttempts;

		/**
		 * How long a handler of this queue may run before it is interrupted and its task counted as failed.
		 */
		private @Nullable Duration timeout;

		/**
		 * The most tasks of this queue committed together by one transaction, each in a savepoint; 1 gives every
		 * task a transaction of its own.
		 */
		private @Nullable Integer groupCommitSize;

		public @Nullable Integer getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(@Nullable Integer concurrency) {
			this.concurrency = concurrency;
		}

		public @Nullable Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public @Nullable Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(@Nullable Duration timeout) {
			this.timeout = timeout;
		}

		public @Nullable Integer getGroupCommitSize() {
			return this.groupCommitSize;
		}

		public void setGroupCommitSize(@Nullable Integer groupCommitSize) {
			this.groupCommitSize = groupCommitSize;
		}

	}

	private static int requirePositive(int value, String property) {
		if (value < 1) {
			throw new IllegalArgumentException(property + " must be at least 1 but was " + value);
		}
		return value;
	}

	private static int requireGroupSize(int value, String property) {
		if (value < 1 || value > QueueSettings.MAX_GROUP_SIZE) {
			throw new IllegalArgumentException(property + " must be between 1 and " + QueueSettings.MAX_GROUP_SIZE
					+ " (PostgreSQL caches 64 subtransactions per transaction) but was " + value);
		}
		return value;
	}

	private static Duration requirePositive(Duration value, String property) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(property + " must be a positive duration but was " + value);
		}
		return value;
	}

	private static Duration requireNotNegative(Duration value, String property) {
		if (value == null || value.isNegative()) {
			throw new IllegalArgumentException(property + " must not be negative but was " + value);
		}
		return value;
	}

}
