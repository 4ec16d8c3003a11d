package dev.taskqueue;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * What a handler may want to know about the task it runs.
 *
 * @param id the task's id, as returned by {@link TaskQueue#enqueue}
 * @param queue the queue the task was enqueued on
 * @param attempt which attempt this is, 1 on the first run
 * @param enqueuedAt when the task was enqueued, on the database clock
 * @param scheduledAt for a task of a recurring schedule, the time of its tick (or of the trigger that made it),
 * on the database clock; {@code null} otherwise
 * @param batch for the {@code then} task of a {@link TaskQueue#enqueueBatch batch}, the batch it follows and how its
 * tasks ended; {@code null} for every other task
 */
public record TaskContext(UUID id, String queue, int attempt, Instant enqueuedAt, @Nullable Instant scheduledAt,
		@Nullable BatchInfo batch) {

	/** The context of a task that no schedule made and that follows no batch. */
	public TaskContext(UUID id, String queue, int attempt, Instant enqueuedAt) {
		this(id, queue, attempt, enqueuedAt, null, null);
	}

	/** The time of the tick that made this task, empty when no recurring schedule made it. */
	public Optional<Instant> tick() {
		return Optional.ofNullable(this.scheduledAt);
	}

}
