package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.taskqueue.internal.jdbc.Database;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;
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
	 * The largest payload an enqueue accepts, as JSON text in UTF-8; a larger one is refused with an
	 * IllegalArgumentException before any SQL. At most 255MB, about the most PostgreSQL's jsonb holds.
	 */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	/**
	 * Whether a payload that has a property its handler's type does not have, or lacks one that the type's
	 * constructor takes (a record's component), sends its task to the dead letters instead of being read leniently
	 * (unknown properties ignored, missing ones null).
	 */
	private boolean strictPayload;

	/**
	 * How TaskQueue's own transactions run again after a serialization failure or deadlock.
	 */
	@NestedConfigurationProperty
	private final SerializationRetryProperties serializationRetry = new SerializationRetryProperties();

	private final Schema schema = new Schema();

	@NestedConfigurationProperty
	private final WorkerProperties worker = new WorkerProperties();

	@NestedConfigurationProperty
	private final RetryProperties retry = new RetryProperties();

	private final Notify notify = new Notify();

	private final Metrics metrics = new Metrics();

	private final Retention retention = new Retention();

	private final Redaction redaction = new Redaction();

	private final History history = new History();

	private final Progress progress = new Progress();

	private final Results results = new Results();

	@NestedConfigurationProperty
	private final DashboardProperties dashboard = new DashboardProperties();

	@NestedConfigurationProperty
	private final HealthProperties health = new HealthProperties();

	@NestedConfigurationProperty
	private final BloatProperties bloat = new BloatProperties();

	/**
	 * Settings per queue, keyed by queue name (concurrency, max-attempts, timeout); they take precedence over the
	 * handler's annotation attributes. Names with dots or colons need brackets: taskqueue.queues[billing.v2].
	 */
	private final Map<String, QueueProperties> queues = new LinkedHashMap<>();

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

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public boolean isStrictPayload() {
		return this.strictPayload;
	}

	public void setStrictPayload(boolean strictPayload) {
		this.strictPayload = strictPayload;
	}

	public SerializationRetryProperties getSerializationRetry() {
		return this.serializationRetry;
	}

	public Schema getSchema() {
		return this.schema;
	}

	public WorkerProperties getWorker() {
		return this.worker;
	}

	public RetryProperties getRetry() {
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

	public Redaction getRedaction() {
		return this.redaction;
	}

	public History getHistory() {
		return this.history;
	}

	public Progress getProgress() {
		return this.progress;
	}

	public Results getResults() {
		return this.results;
	}

	public DashboardProperties getDashboard() {
		return this.dashboard;
	}

	public HealthProperties getHealth() {
		return this.health;
	}

	public BloatProperties getBloat() {
		return this.bloat;
	}

	public Map<String, QueueProperties> getQueues() {
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

	public static class Notify {

		/**
		 * Whether enqueues send a PostgreSQL NOTIFY and workers LISTEN for it, to start new tasks without waiting
		 * for the next poll (and to hear at once that a task they run was cancelled, rather than at the next
		 * heartbeat); turn off behind PgBouncer in transaction pooling mode. Left unset on CockroachDB or
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

	public static class Metrics {

		/**
		 * How often the queue gauges (ready, scheduled, running, dead, oldest ready age) and the bloat figures of the
		 * task tables are read from the database, each with one statement, whatever the number of scrapes.
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

	/** What the dashboard and the actuator endpoint show of tasks (see dev.taskqueue.TaskRedactor). */
	public static class Redaction {

		/**
		 * Whether the dashboard and the taskqueue actuator endpoint hide every task's payload, whatever the
		 * application's TaskRedactor does; errors are still shown (through the TaskRedactor).
		 */
		private boolean hidePayloads = false;

		public boolean isHidePayloads() {
			return this.hidePayloads;
		}

		public void setHidePayloads(boolean hidePayloads) {
			this.hidePayloads = hidePayloads;
		}

	}

	public static class Retention {

		/**
		 * How long a dead letter is kept before it is deleted.
		 */
		private Duration deadLetters = Duration.ofDays(14);

		/**
		 * How long a completed task is kept in the history, and its result, before they are deleted.
		 */
		private Duration history = Duration.ofDays(7);

		/**
		 * How often each instance deletes, in batches, the dead letters, history rows and results older than their
		 * retention.
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
		 * Whether each completed or cancelled task is also kept in the taskqueue_history table, which slows
		 * completions down.
		 */
		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	public static class Progress {

		/**
		 * How often a worker writes the progress its running tasks report (TaskContext.progress), the latest report
		 * of each task, however often its handler reports.
		 */
		private Duration writeInterval = Duration.ofSeconds(1);

		public Duration getWriteInterval() {
			return this.writeInterval;
		}

		public void setWriteInterval(Duration writeInterval) {
			this.writeInterval = writeInterval;
		}

	}

	public static class Results {

		/**
		 * The largest result a handler may give (its return value or TaskContext.result), as JSON text in UTF-8; a
		 * larger one fails the attempt and sends the task to the dead letters. Results are kept for
		 * taskqueue.retention.history.
		 */
		private DataSize maxSize = DataSize.ofKilobytes(64);

		public DataSize getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(DataSize maxSize) {
			this.maxSize = maxSize;
		}

	}

}
