package dev.taskqueue.internal.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * A task to insert. When to run it is either a delay after the enqueue on the database clock, or a fixed time, or
 * neither (now).
 *
 * @param id the task's id
 * @param queue its queue
 * @param payload its JSON payload
 * @param priority its priority
 * @param delay the delay after the enqueue, or {@code null}
 * @param runAt the time to run, or {@code null}
 * @param headers its headers as a JSON object of strings, {@code "{}"} when it has none
 * @param uniqueKey its unique key in its queue, or {@code null}
 * @param replace whether it replaces a task with its unique key that has not started (REPLACE) rather than give way
 * to any task with it (KEEP)
 * @param orderingKey its ordering key in its queue, or {@code null}
 * @param fairnessKey its fairness key in its queue (docs/fairness.md), or {@code null}
 */
public record NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
		@Nullable Instant runAt, String headers, @Nullable String uniqueKey, boolean replace,
		@Nullable String orderingKey, @Nullable String fairnessKey) {

	/** A task without a fairness key. */
	public NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
			@Nullable Instant runAt, String headers, @Nullable String uniqueKey, boolean replace,
			@Nullable String orderingKey) {
		this(id, queue, payload, priority, delay, runAt, headers, uniqueKey, replace, orderingKey, null);
	}

	/** A task without an ordering key. */
	public NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
			@Nullable Instant runAt, String headers, @Nullable String uniqueKey, boolean replace) {
		this(id, queue, payload, priority, delay, runAt, headers, uniqueKey, replace, null);
	}

	/** A task without a unique key. */
	public NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
			@Nullable Instant runAt, String headers) {
		this(id, queue, payload, priority, delay, runAt, headers, null, false);
	}

	/** A task without headers or unique key. */
	public NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
			@Nullable Instant runAt) {
		this(id, queue, payload, priority, delay, runAt, "{}");
	}

	/** This task with other headers. */
	public NewTask withHeaders(String headers) {
		return new NewTask(this.id, this.queue, this.payload, this.priority, this.delay, this.runAt, headers,
				this.uniqueKey, this.replace, this.orderingKey, this.fairnessKey);
	}

}
