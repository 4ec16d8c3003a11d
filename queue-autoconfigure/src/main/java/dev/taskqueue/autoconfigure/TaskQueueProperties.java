package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.taskqueue.jdbc.Database;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration of TaskQueue, under {@code taskqueue}. Every value is checked once bound, in one place
 * ({@link TaskQueuePropertiesValidation}), so a bad one stops the application with Spring Boot's report of the
 * property, its value, where it was set and why it is refused.
 */
@ConfigurationProperties("taskqueue")
public class TaskQueueProperties implements Validator {

	/**
	 * Whether TaskQueue is configured at all.
	 */
	private boolean enabled = true;

	/**
	 * The database TaskQueue runs on: auto (detected from the connection), postgresql, cockroachdb or yugabytedb.
	 * What the database cannot do is refused at startup, not ignored; a setting that contradicts the detected
	 * database stops the application.
	 */
	private Database database = Database.AUTO;

	/**
	 * How TaskQueue's own transactions run again after a serialization failure or deadlock.
	 */
	@NestedConfigurationProperty
	private final SerializationRetryProperties serializationRetry = new SerializationRetryProperties();

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

	/**
	 * Recurring schedules declared in configuration, keyed by schedule name, each enqueueing a task on a queue with
	 * a @TaskHandler (cron, zone, fixed-rate, fixed-delay, queue, payload, missed, overlap).
	 */
	private final Map<String, ScheduleProperties> schedules = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Database getDatabase() {
		return this.database;
	}

	public void setDatabase(Database database) {
		this.database = database;
	}

	public SerializationRetryProperties getSerializationRetry() {
		return this.serializationRetry;
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

	public Map<String, ScheduleProperties> getSchedules() {
		return this.schedules;
	}

	@Override
	public boolean supports(Class<?> type) {
		return TaskQueueProperties.class.isAssignableFrom(type);
	}

	/** Checks the bound values: Spring Boot calls this once they are all bound (a self-validating bean). */
	@Override
	public void validate(Object target, Errors errors) {
		new TaskQueuePropertiesValidation((TaskQueueProperties) target, errors).validate();
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
			this.name = name;
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
		 * The most completions of BATCHED handlers written by one statement. Handlers block while four times as
		 * many wait to be written.
		 */
		private int completionBatchSize = 400;

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
			this.concurrency = concurrency;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public Duration getHeartbeatInterval() {
			return this.heartbeatInterval;
		}

		public void setHeartbeatInterval(Duration heartbeatInterval) {
			this.heartbeatInterval = heartbeatInterval;
		}

		public Duration getSessionTimeout() {
			return this.sessionTimeout;
		}

		public void setSessionTimeout(Duration sessionTimeout) {
			this.sessionTimeout = sessionTimeout;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public int getCompletionBatchSize() {
			return this.completionBatchSize;
		}

		public void setCompletionBatchSize(int completionBatchSize) {
			this.completionBatchSize = completionBatchSize;
		}

		public int getGroupCommitSize() {
			return this.groupCommitSize;
		}

		public void setGroupCommitSize(int groupCommitSize) {
			this.groupCommitSize = groupCommitSize;
		}

		public Duration getGroupCommitMaxDelay() {
			return this.groupCommitMaxDelay;
		}

		public void setGroupCommitMaxDelay(Duration groupCommitMaxDelay) {
			this.groupCommitMaxDelay = groupCommitMaxDelay;
		}

		public int getMaxPrefetch() {
			return this.maxPrefetch;
		}

		public void setMaxPrefetch(int maxPrefetch) {
			this.maxPrefetch = maxPrefetch;
		}

		public Duration getCompletionFlushInterval() {
			return this.completionFlushInterval;
		}

		public void setCompletionFlushInterval(Duration completionFlushInterval) {
			this.completionFlushInterval = completionFlushInterval;
		}

	}

	public static class Notify {

		/**
		 * Whether enqueues send a PostgreSQL NOTIFY and workers LISTEN for it, to start new tasks without waiting
		 * for the next poll; turn off behind PgBouncer in transaction pooling mode. Left unset on CockroachDB or
		 * YugabyteDB, workers poll; set it on YugabyteDB only when the cluster has LISTEN/NOTIFY (on CockroachDB,
		 * which has none, setting it stops the application).
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
			this.maxAttempts = maxAttempts;
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
			this.initialDelay = initialDelay;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public double getJitter() {
			return this.jitter;
		}

		public void setJitter(double jitter) {
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
			this.refreshInterval = refreshInterval;
		}

		public int getCountLimit() {
			return this.countLimit;
		}

		public void setCountLimit(int countLimit) {
			this.countLimit = countLimit;
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
			this.deadLetters = deadLetters;
		}

		public Duration getHistory() {
			return this.history;
		}

		public void setHistory(Duration history) {
			this.history = history;
		}

		public Duration getPruneInterval() {
			return this.pruneInterval;
		}

		public void setPruneInterval(Duration pruneInterval) {
			this.pruneInterval = pruneInterval;
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

		/**
		 * The most tasks of this queue running at once across all instances, on top of each instance's own
		 * concurrency; no limit when not set.
		 */
		private @Nullable Integer globalConcurrency;

		@NestedConfigurationProperty
		private final RateLimitProperties rateLimit = new RateLimitProperties();

		/**
		 * How many buckets this queue's tasks are spread over by a hash of their id (1 to 256), each claim reading
		 * one bucket's head first and the next claim the next bucket, so that many instances do not all claim at
		 * the head of one index. Priority order holds within a bucket only; 1 keeps one strict order. Set it
		 * alike on the instances that enqueue and those that run the queue; a mismatch strands nothing. When not
		 * set: 1 on PostgreSQL, 16 on CockroachDB and YugabyteDB, where one index head is one hot range.
		 */
		private @Nullable Integer buckets;

		public @Nullable Integer getBuckets() {
			return this.buckets;
		}

		public void setBuckets(@Nullable Integer buckets) {
			this.buckets = buckets;
		}

		public @Nullable Integer getGlobalConcurrency() {
			return this.globalConcurrency;
		}

		public void setGlobalConcurrency(@Nullable Integer globalConcurrency) {
			this.globalConcurrency = globalConcurrency;
		}

		public RateLimitProperties getRateLimit() {
			return this.rateLimit;
		}

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

}
