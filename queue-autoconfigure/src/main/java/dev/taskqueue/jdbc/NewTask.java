package dev.taskqueue.jdbc;

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
 */
public record NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
		@Nullable Instant runAt, String headers) {

	/** A task without headers. */
	public NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
			@Nullable Instant runAt) {
		this(id, queue, payload, priority, delay, runAt, "{}");
	}

}
