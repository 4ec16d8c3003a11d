package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.regex.Pattern;

import dev.taskqueue.QueueName;
import dev.taskqueue.internal.jdbc.TaskBuckets;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.producer.DefaultTaskQueue;
import dev.taskqueue.internal.worker.QueueSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.util.unit.DataSize;
import org.springframework.validation.BindingResult;
import org.springframework.validation.Errors;
import org.springframework.validation.FieldError;

/**
 * Every check of {@link TaskQueueProperties}, in one place. Each refusal is a field error on the property's path
 * under {@code taskqueue} ({@code worker.concurrency}, {@code queues[billing.v2].max-attempts}): Spring Boot turns it
 * into a startup failure that names the property, its value, where it was set, and the reason given here. All
 * refusals are reported together.
 */
final class TaskQueuePropertiesValidation {

	private static final String CODE = "taskqueue.invalid";

	private static final Pattern CANONICAL_KEY = Pattern.compile("[a-z0-9-]+");

	private final TaskQueueProperties properties;

	private final Errors errors;

	TaskQueuePropertiesValidation(TaskQueueProperties properties, Errors errors) {
		this.properties = properties;
		this.errors = errors;
	}

	void validate() {
		schema(this.properties.getSchema());
		worker(this.properties.getWorker());
		retry(this.properties.getRetry());
		TaskQueueProperties.Metrics metrics = this.properties.getMetrics();
		positive("metrics.refresh-interval", metrics.getRefreshInterval());
		atLeast("metrics.count-limit", metrics.getCountLimit(), 1);
		TaskQueueProperties.Retention retention = this.properties.getRetention();
		positive("retention.dead-letters", retention.getDeadLetters());
		positive("retention.history", retention.getHistory());
		positive("retention.prune-interval", retention.getPruneInterval());
		dashboard(this.properties.getDashboard());
		DataSize maxPayloadSize = this.properties.getMaxPayloadSize();
		if (maxPayloadSize == null || maxPayloadSize.toBytes() < 1
				|| maxPayloadSize.compareTo(DefaultTaskQueue.LARGEST_MAX_PAYLOAD_SIZE) > 0) {
			reject("max-payload-size", maxPayloadSize, "must be from 1B to 255MB (about the most a jsonb value holds)");
		}
		positive("progress.write-interval", this.properties.getProgress().getWriteInterval());
		DataSize maxResultSize = this.properties.getResults().getMaxSize();
		if (maxResultSize == null || maxResultSize.toBytes() < 1
				|| maxResultSize.compareTo(DefaultTaskQueue.LARGEST_MAX_PAYLOAD_SIZE) > 0) {
			reject("results.max-size", maxResultSize, "must be from 1B to 255MB (about the most a jsonb value holds)");
		}
		positive("health.timeout", this.properties.getHealth().getTimeout());
		BloatProperties bloat = this.properties.getBloat();
		if (bloat.getDeadTuples() < 0) {
			reject("bloat.dead-tuples", bloat.getDeadTuples(), "must not be negative");
		}
		if (!(bloat.getDeadRatio() >= 0)) {
			reject("bloat.dead-ratio", bloat.getDeadRatio(), "must not be negative");
		}
		positive("bloat.horizon-age", bloat.getHorizonAge());
		SerializationRetryProperties serializationRetry = this.properties.getSerializationRetry();
		atLeast("serialization-retry.max-attempts", serializationRetry.getMaxAttempts(), 1);
		notNegative("serialization-retry.initial-delay", serializationRetry.getInitialDelay());
		positive("serialization-retry.max-delay", serializationRetry.getMaxDelay());
		if (this.properties.getDatabase() == null) {
			reject("database", null, "must be auto, postgresql, cockroachdb or yugabytedb");
		}
		this.properties.getQueues().forEach(this::queue);
	}

	private void dashboard(DashboardProperties dashboard) {
		if (dashboard.getPath() == null || !DashboardProperties.PATH.matcher(dashboard.getPath()).matches()) {
			reject("dashboard.path", dashboard.getPath(), "must start with '/', not end with '/', and hold only "
					+ "letters, digits, '.', '_', '~', '-' and '/'");
		}
		if (dashboard.getRefreshInterval() == null || dashboard.getRefreshInterval().toSeconds() < 1) {
			reject("dashboard.refresh-interval", dashboard.getRefreshInterval(), "must be at least 1s");
		}
		if (dashboard.getSearchLimit() < 1 || dashboard.getSearchLimit() > 1000) {
			reject("dashboard.search-limit", dashboard.getSearchLimit(), "must be between 1 and 1000");
		}
		// An empty authority would be one nobody has (or, if it were taken as no check, everyone's): say so at startup.
		if (dashboard.getViewAuthority() == null || dashboard.getViewAuthority().isBlank()) {
			reject("dashboard.view-authority", dashboard.getViewAuthority(), "must not be empty");
		}
		if (dashboard.getOperateAuthority() == null || dashboard.getOperateAuthority().isBlank()) {
			reject("dashboard.operate-authority", dashboard.getOperateAuthority(), "must not be empty");
		}
	}

	private void schema(TaskQueueProperties.Schema schema) {
		try {
			TaskTables.inSchema(schema.getName());
		}
		catch (IllegalArgumentException ex) {
			reject("schema.name", schema.getName(),
					"must be a plain SQL identifier (a letter or '_', then letters, digits or '_', at most 63)");
		}
	}

	private void worker(WorkerProperties worker) {
		atLeast("worker.concurrency", worker.getConcurrency(), 1);
		positive("worker.poll-interval", worker.getPollInterval());
		positive("worker.heartbeat-interval", worker.getHeartbeatInterval());
		positive("worker.session-timeout", worker.getSessionTimeout());
		if (worker.getHeartbeatInterval().compareTo(worker.getSessionTimeout()) >= 0) {
			reject("worker.heartbeat-interval", worker.getHeartbeatInterval(),
					"must be shorter than taskqueue.worker.session-timeout (" + worker.getSessionTimeout() + ")");
		}
		notNegative("worker.shutdown-timeout", worker.getShutdownTimeout());
		positive("worker.timeout", worker.getTimeout());
		atLeast("worker.completion-batch-size", worker.getCompletionBatchSize(), 1);
		positive("worker.completion-flush-interval", worker.getCompletionFlushInterval());
		atLeast("worker.max-prefetch", worker.getMaxPrefetch(), 0);
		groupSize("worker.group-commit-size", worker.getGroupCommitSize());
		notNegative("worker.group-commit-max-delay", worker.getGroupCommitMaxDelay());
	}

	private void retry(RetryProperties retry) {
		atLeast("retry.max-attempts", retry.getMaxAttempts(), 1);
		RetryProperties.Backoff backoff = retry.getBackoff();
		notNegative("retry.backoff.initial-delay", backoff.getInitialDelay());
		if (!(backoff.getMultiplier() >= 1.0) || Double.isInfinite(backoff.getMultiplier())) {
			reject("retry.backoff.multiplier", backoff.getMultiplier(), "must be at least 1");
		}
		notNegative("retry.backoff.max-delay", backoff.getMaxDelay());
		if (!(backoff.getJitter() >= 0.0 && backoff.getJitter() <= 1.0)) {
			reject("retry.backoff.jitter", backoff.getJitter(), "must be from 0 to 1");
		}
	}

	private void queue(String name, QueueProperties queue) {
		if (!QueueName.isValid(name)) {
			this.errors.reject(CODE, "taskqueue.queues key must be 1 to 100 letters, digits, '.', '_', "
					+ "'-' or ':' but was '" + name + "'");
			return;
		}
		String property = "queues" + (CANONICAL_KEY.matcher(name).matches() ? "." + name : "[" + name + "]") + ".";
		if (queue.getConcurrency() != null) {
			atLeast(property + "concurrency", queue.getConcurrency(), 1);
		}
		if (queue.getMaxAttempts() != null) {
			atLeast(property + "max-attempts", queue.getMaxAttempts(), 1);
		}
		if (queue.getTimeout() != null) {
			positive(property + "timeout", queue.getTimeout());
		}
		if (queue.getGroupCommitSize() != null) {
			groupSize(property + "group-commit-size", queue.getGroupCommitSize());
		}
		if (queue.getGlobalConcurrency() != null) {
			atLeast(property + "global-concurrency", queue.getGlobalConcurrency(), 1);
		}
		rateLimit(property + "rate-limit.", queue.getRateLimit());
		if (queue.getBuckets() != null && (queue.getBuckets() < 1 || queue.getBuckets() > TaskBuckets.MAX)) {
			reject(property + "buckets", queue.getBuckets(), "must be between 1 and " + TaskBuckets.MAX);
		}
	}

	private void rateLimit(String property, RateLimitProperties rate) {
		if ((rate.getLimit() == null) != (rate.getPeriod() == null)) {
			String set = (rate.getLimit() != null) ? "limit" : "period";
			String unset = (rate.getLimit() != null) ? "period" : "limit";
			reject(property + set, (rate.getLimit() != null) ? rate.getLimit() : rate.getPeriod(),
					"needs taskqueue." + property + unset + " as well: a rate limit is a limit per period");
		}
		if (rate.getLimit() != null) {
			atLeast(property + "limit", rate.getLimit(), 1);
		}
		if (rate.getPeriod() != null && rate.getPeriod().compareTo(RateLimitProperties.MIN_PERIOD) < 0) {
			reject(property + "period", rate.getPeriod(),
					"must be at least " + RateLimitProperties.MIN_PERIOD.toMillis() + "ms");
		}
	}

	private void atLeast(String property, int value, int least) {
		if (value < least) {
			reject(property, value, "must be at least " + least);
		}
	}

	private void groupSize(String property, int value) {
		if (value < 1 || value > QueueSettings.MAX_GROUP_SIZE) {
			reject(property, value, "must be between 1 and " + QueueSettings.MAX_GROUP_SIZE
					+ " (PostgreSQL caches 64 subtransactions per transaction)");
		}
	}

	private void positive(String property, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			reject(property, value, "must be a positive duration");
		}
	}

	private void notNegative(String property, @Nullable Duration value) {
		if (value == null || value.isNegative()) {
			reject(property, value, "must not be negative");
		}
	}

	/**
	 * Refuses {@code value} of {@code property}, a path under {@code taskqueue} as users write it. The field error is
	 * built here rather than by {@code rejectValue}, which would read the value by its bean path
	 * ({@code queues[x].maxAttempts}) and have Spring Boot report that path, camel case and all.
	 */
	private void reject(String property, @Nullable Object value, String reason) {
		if (this.errors instanceof BindingResult result) {
			result.addError(new FieldError(result.getObjectName(), property, value, false, new String[] { CODE }, null,
					reason));
		}
		else {
			this.errors.reject(CODE, "taskqueue." + property + " " + reason + " but was " + value);
		}
	}

}
