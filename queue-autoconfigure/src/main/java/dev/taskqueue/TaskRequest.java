package dev.taskqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * An immutable description of a task to enqueue: {@code TaskRequest.of("emails", payload).withPriority(10)}.
 * Each {@code with…} method returns a new request.
 */
public final class TaskRequest {

	// 100 years, for a delay and for a run-at time either side of now: far beyond any schedule, and well inside
	// what PostgreSQL's timestamptz holds and what a Duration in nanoseconds (292 years) holds. A sentinel such as
	// Instant.MAX or a year-1 time gets a clear error here instead of "timestamp out of range" in the INSERT, or a
	// "long overflow" wherever the task's age is measured in nanoseconds (a Micrometer timer).
	private static final Duration LONGEST_DELAY = Duration.ofDays(36_525);

	private static final int LONGEST_KEY = 255;

	// Deduplicating tasks that wait behind their key would need the unique statements to place a task behind its
	// key too; until then the two are not combined (docs/ordered-keys.md).
	private static final String COMBINED = "a request cannot have both a unique key and an ordering key";

	// A task waiting for its prerequisites is not in the task table, where unique and ordering keys are kept
	// (docs/dependencies.md).
	private static final String DEPENDS_COMBINED = "a request with prerequisites (dependsOn) cannot have a unique key, "
			+ "an ordering key or a fairness key";

	// A fair claim takes a key's tasks in the key's claim order; a unique or an ordering key has statements of its
	// own (ON CONFLICT on their indexes, the hand-off of a key's next task) that do not write the fairness key, and an
	// ordered key's next task is handed off by completions rather than claimed (docs/fairness.md).
	private static final String FAIR_COMBINED = "a request cannot have a fairness key together with a unique key or "
			+ "an ordering key";

	private final String queue;

	private final Object payload;

	private final int priority;

	private final @Nullable Duration delay;

	private final @Nullable Instant runAt;

	private final @Nullable String uniqueKey;

	private final UniqueMode uniqueMode;

	private final @Nullable String orderingKey;

	private final List<UUID> dependsOn;

	private final DependencyFailure dependencyFailure;

	private final @Nullable String fairnessKey;

	private TaskRequest(String queue, Object payload, int priority, @Nullable Duration delay, @Nullable Instant runAt,
			@Nullable String uniqueKey, UniqueMode uniqueMode, @Nullable String orderingKey) {
		this(queue, payload, priority, delay, runAt, uniqueKey, uniqueMode, orderingKey, List.of(),
				DependencyFailure.DEAD);
	}

	private TaskRequest(String queue, Object payload, int priority, @Nullable Duration delay, @Nullable Instant runAt,
			@Nullable String uniqueKey, UniqueMode uniqueMode, @Nullable String orderingKey, List<UUID> dependsOn,
			DependencyFailure dependencyFailure) {
		this(queue, payload, priority, delay, runAt, uniqueKey, uniqueMode, orderingKey, dependsOn, dependencyFailure,
				null);
	}

	private TaskRequest(String queue, Object payload, int priority, @Nullable Duration delay, @Nullable Instant runAt,
			@Nullable String uniqueKey, UniqueMode uniqueMode, @Nullable String orderingKey, List<UUID> dependsOn,
			DependencyFailure dependencyFailure, @Nullable String fairnessKey) {
		this.queue = queue;
		this.payload = payload;
		this.priority = priority;
		this.delay = delay;
		this.runAt = runAt;
		this.uniqueKey = uniqueKey;
		this.uniqueMode = uniqueMode;
		this.orderingKey = orderingKey;
		this.dependsOn = dependsOn;
		this.dependencyFailure = dependencyFailure;
		this.fairnessKey = fairnessKey;
	}

	/**
	 * A request to run {@code payload} on {@code queue} as soon as possible, with priority 0.
	 * @throws IllegalArgumentException if the queue name is invalid or the payload is null
	 */
	public static TaskRequest of(String queue, Object payload) {
		QueueName.requireValid(queue, "queue");
		if (payload == null) {
			throw new IllegalArgumentException("payload must not be null (queue '" + queue + "')");
		}
		return new TaskRequest(queue, payload, 0, null, null, null, UniqueMode.KEEP, null);
	}

	/** This request with another priority; higher runs first, the default is 0. */
	public TaskRequest withPriority(int priority) {
		return new TaskRequest(this.queue, this.payload, priority, this.delay, this.runAt, this.uniqueKey,
				this.uniqueMode, this.orderingKey, this.dependsOn, this.dependencyFailure, this.fairnessKey);
	}

	/**
	 * This request to run no earlier than {@code delay} after the enqueue, measured on the database clock.
	 * Replaces any {@link #withRunAt(Instant) run-at time}.
	 * @throws IllegalArgumentException if the delay is negative or longer than 100 years
	 */
	public TaskRequest withDelay(Duration delay) {
		Objects.requireNonNull(delay, "delay must not be null");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must not be negative but was " + delay);
		}
		if (delay.compareTo(LONGEST_DELAY) > 0) {
			throw new IllegalArgumentException("delay must be at most 100 years (" + LONGEST_DELAY + ") but was "
					+ delay);
		}
		return new TaskRequest(this.queue, this.payload, this.priority, delay, null, this.uniqueKey, this.uniqueMode,
				this.orderingKey, this.dependsOn, this.dependencyFailure, this.fairnessKey);
	}

	/**
	 * This request to run no earlier than {@code runAt}. Replaces any {@link #withDelay(Duration) delay}.
	 * @throws IllegalArgumentException if {@code runAt} is more than 100 years before or after now
	 */
	public TaskRequest withRunAt(Instant runAt) {
		Objects.requireNonNull(runAt, "runAt must not be null");
		Instant now = Instant.now();
		Instant earliest = now.minus(LONGEST_DELAY);
		Instant latest = now.plus(LONGEST_DELAY);
		if (runAt.isBefore(earliest) || runAt.isAfter(latest)) {
			throw new IllegalArgumentException("runAt must be at most 100 years (" + LONGEST_DELAY
					+ ") before or after now, from " + earliest + " to " + latest + ", but was " + runAt);
		}
		return new TaskRequest(this.queue, this.payload, this.priority, null, runAt, this.uniqueKey, this.uniqueMode,
				this.orderingKey, this.dependsOn, this.dependencyFailure, this.fairnessKey);
	}

	/**
	 * This request with a unique key, in {@link UniqueMode#KEEP}: while a task of the same queue with this key
	 * waits, is scheduled, waits to retry or runs, enqueueing this request adds nothing and returns that task's id.
	 * Keys are per queue; a completed or dead task does not hold its key.
	 * @throws IllegalArgumentException if the key is null, blank, longer than 255 characters or cannot be stored
	 * @see TaskQueue#offer(TaskRequest)
	 */
	public TaskRequest withUniqueKey(String key) {
		return withUniqueKey(key, UniqueMode.KEEP);
	}

	/**
	 * This request with a unique key and what to do when a task of the same queue already has it.
	 * @throws IllegalArgumentException if the key is null, blank, longer than 255 characters or cannot be stored,
	 * or the mode is null
	 * @see UniqueMode
	 */
	public TaskRequest withUniqueKey(String key, UniqueMode mode) {
		requireKey(key, "unique key");
		if (mode == null) {
			throw new IllegalArgumentException("unique mode must not be null (queue '" + this.queue + "')");
		}
		if (this.orderingKey != null) {
			throw new IllegalArgumentException(COMBINED + " (queue '" + this.queue + "')");
		}
		if (!this.dependsOn.isEmpty()) {
			throw new IllegalArgumentException(DEPENDS_COMBINED + " (queue '" + this.queue + "')");
		}
		if (this.fairnessKey != null) {
			throw new IllegalArgumentException(FAIR_COMBINED + " (queue '" + this.queue + "')");
		}
		return new TaskRequest(this.queue, this.payload, this.priority, this.delay, this.runAt, key, mode, null,
				this.dependsOn, this.dependencyFailure);
	}

	/**
	 * This request with an ordering key: the tasks of one queue with the same ordering key run one at a time, in
	 * the order they were enqueued, across all instances; a task that fails and waits to retry holds up the ones
	 * after it until it completes or goes to the dead letters. Tasks with other keys or none run alongside as usual.
	 * Keys are per queue. See docs/ordered-keys.md.
	 * @throws IllegalArgumentException if the key is null, blank, longer than 255 characters or cannot be stored, or
	 * the request has a unique key
	 */
	public TaskRequest withOrderingKey(String key) {
		requireKey(key, "ordering key");
		if (this.uniqueKey != null) {
			throw new IllegalArgumentException(COMBINED + " (queue '" + this.queue + "')");
		}
		if (!this.dependsOn.isEmpty()) {
			throw new IllegalArgumentException(DEPENDS_COMBINED + " (queue '" + this.queue + "')");
		}
		if (this.fairnessKey != null) {
			throw new IllegalArgumentException(FAIR_COMBINED + " (queue '" + this.queue + "')");
		}
		return new TaskRequest(this.queue, this.payload, this.priority, this.delay, this.runAt, null, this.uniqueMode,
				key, this.dependsOn,
				this.dependencyFailure);
	}

	/**
	 * This request with a fairness key, the tenant its task belongs to: while a queue has tasks with fairness keys
	 * waiting, the workers claim its due tasks round-robin across their keys, so that a tenant that enqueues 100,000
	 * tasks does not hold back another that enqueues ten. Tasks of the queue without a key count as one more tenant.
	 * Keys are per queue; a queue whose tasks have none claims exactly as before. See docs/fairness.md.
	 * @throws IllegalArgumentException if the key is null, blank, longer than 255 characters or cannot be stored, or
	 * the request has a unique key, an ordering key or prerequisites
	 */
	public TaskRequest withFairnessKey(String key) {
		requireKey(key, "fairness key");
		if (this.uniqueKey != null || this.orderingKey != null) {
			throw new IllegalArgumentException(FAIR_COMBINED + " (queue '" + this.queue + "')");
		}
		if (!this.dependsOn.isEmpty()) {
			throw new IllegalArgumentException(DEPENDS_COMBINED + " (queue '" + this.queue + "')");
		}
		return new TaskRequest(this.queue, this.payload, this.priority, this.delay, this.runAt, null, this.uniqueMode,
				null, this.dependsOn, this.dependencyFailure, key);
	}

	/**
	 * This request to wait until every task named by {@code ids} has completed: until then it is not due, and it
	 * becomes due once, when the last of them has completed; its delay or run-at time count from then. An id that
	 * names no task, waiting, running or dead (a task that completed long ago, or never existed), counts as
	 * completed. If one of them is in the dead letters, the task follows {@link #withDependencyFailure
	 * its dependency failure policy}, {@link DependencyFailure#DEAD} by default. Replaces any earlier prerequisites.
	 * See docs/dependencies.md.
	 * @throws IllegalArgumentException if {@code ids} is null, empty or holds null, or the request has a unique or
	 * ordering key
	 */
	public TaskRequest withDependsOn(UUID... ids) {
		if (ids == null) {
			throw new IllegalArgumentException("dependsOn must not be null (queue '" + this.queue + "')");
		}
		return withDependsOn(List.of(ids));
	}

	/**
	 * This request to wait until every task named by {@code ids} has completed; see {@link #withDependsOn(UUID...)}.
	 * @throws IllegalArgumentException if {@code ids} is null, empty or holds null, or the request has a unique or
	 * ordering key
	 */
	public TaskRequest withDependsOn(Collection<UUID> ids) {
		if (ids == null || ids.isEmpty()) {
			throw new IllegalArgumentException("dependsOn must name at least one task (queue '" + this.queue + "')");
		}
		Set<UUID> distinct = new LinkedHashSet<>();
		for (UUID id : ids) {
			if (id == null) {
				throw new IllegalArgumentException("dependsOn must not hold null (queue '" + this.queue + "')");
			}
			distinct.add(id);
		}
		if (this.uniqueKey != null || this.orderingKey != null || this.fairnessKey != null) {
			throw new IllegalArgumentException(DEPENDS_COMBINED + " (queue '" + this.queue + "')");
		}
		return new TaskRequest(this.queue, this.payload, this.priority, this.delay, this.runAt, this.uniqueKey,
				this.uniqueMode, this.orderingKey, List.copyOf(new ArrayList<>(distinct)), this.dependencyFailure);
	}

	/**
	 * This request with what to do when one of its {@link #withDependsOn(UUID...) prerequisites} is in the dead
	 * letters; {@link DependencyFailure#DEAD} by default.
	 * @throws IllegalArgumentException if {@code failure} is null
	 */
	public TaskRequest withDependencyFailure(DependencyFailure failure) {
		if (failure == null) {
			throw new IllegalArgumentException("dependency failure must not be null (queue '" + this.queue + "')");
		}
		return new TaskRequest(this.queue, this.payload, this.priority, this.delay, this.runAt, this.uniqueKey,
				this.uniqueMode, this.orderingKey, this.dependsOn, failure, this.fairnessKey);
	}

	// Checked here, before any SQL: a bad key found by PostgreSQL would fail the caller's transaction.
	private void requireKey(String key, String what) {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException(what + " must not be null or blank (queue '" + this.queue + "')");
		}
		if (key.codePointCount(0, key.length()) > LONGEST_KEY) {
			throw new IllegalArgumentException(what + " must be at most " + LONGEST_KEY + " characters but was "
					+ key.codePointCount(0, key.length()) + " (queue '" + this.queue + "')");
		}
		String problem = KeyText.problem(key);
		if (problem != null) {
			throw new IllegalArgumentException(
					what + " cannot be stored: it contains " + problem + " (queue '" + this.queue + "')");
		}
	}

	public String queue() {
		return this.queue;
	}

	public Object payload() {
		return this.payload;
	}

	public int priority() {
		return this.priority;
	}

	/** The delay after the enqueue, or {@code null} when none was given. */
	public @Nullable Duration delay() {
		return this.delay;
	}

	/** The earliest time to run, or {@code null} when none was given. */
	public @Nullable Instant runAt() {
		return this.runAt;
	}

	/** The unique key, or {@code null} when none was given. */
	public @Nullable String uniqueKey() {
		return this.uniqueKey;
	}

	/** What to do when a task already has the {@link #uniqueKey() unique key}; {@link UniqueMode#KEEP} by default. */
	public UniqueMode uniqueMode() {
		return this.uniqueMode;
	}

	/** The ordering key, or {@code null} when none was given. */
	public @Nullable String orderingKey() {
		return this.orderingKey;
	}

	/** The fairness key, or {@code null} when none was given. */
	public @Nullable String fairnessKey() {
		return this.fairnessKey;
	}

	/** The ids of the tasks this request waits for, in the order given, without repeats; empty when none. */
	public List<UUID> dependsOn() {
		return this.dependsOn;
	}

	/** What the task does when one of its prerequisites is in the dead letters. */
	public DependencyFailure dependencyFailure() {
		return this.dependencyFailure;
	}

	@Override
	public String toString() {
		return "TaskRequest[queue=" + this.queue + ", priority=" + this.priority
				+ ((this.delay != null) ? ", delay=" + this.delay : "")
				+ ((this.runAt != null) ? ", runAt=" + this.runAt : "")
				+ ((this.uniqueKey != null) ? ", uniqueKey=" + this.uniqueKey + ", uniqueMode=" + this.uniqueMode : "")
				+ ((this.orderingKey != null) ? ", orderingKey=" + this.orderingKey : "")
				+ ((this.fairnessKey != null) ? ", fairnessKey=" + this.fairnessKey : "")
				+ (!this.dependsOn.isEmpty() ? ", dependsOn=" + this.dependsOn + ", dependencyFailure="
						+ this.dependencyFailure : "")
				+ "]";
	}

}
