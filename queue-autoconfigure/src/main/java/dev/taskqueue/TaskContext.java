package dev.taskqueue;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * What a handler may want to know about the task it runs, and what it may tell the queue while it runs.
 * <p>
 * The worker hands each handler call a context of its own, made by a subclass that connects it to the running task.
 * A test may construct one with the public constructors, or subclass it to play the worker's part.
 */
public class TaskContext {

	private final UUID id;

	private final String queue;

	private final int attempt;

	private final Instant enqueuedAt;

	private final @Nullable Instant scheduledAt;

	private final @Nullable BatchInfo batch;

	/**
	 * @param id the task's id, as returned by {@link TaskQueue#enqueue}
	 * @param queue the queue the task was enqueued on
	 * @param attempt which attempt this is, 1 on the first run
	 * @param enqueuedAt when the task was enqueued, on the database clock
	 * @param scheduledAt for a task of a recurring schedule, the time of its tick (or of the trigger that made it),
	 * on the database clock; {@code null} otherwise
	 * @param batch for the {@code then} task of a {@link TaskQueue#enqueueBatch batch}, the batch it follows and how
	 * its tasks ended; {@code null} for every other task
	 */
	public TaskContext(UUID id, String queue, int attempt, Instant enqueuedAt, @Nullable Instant scheduledAt,
			@Nullable BatchInfo batch) {
		this.id = Objects.requireNonNull(id, "id");
		this.queue = Objects.requireNonNull(queue, "queue");
		this.attempt = attempt;
		this.enqueuedAt = Objects.requireNonNull(enqueuedAt, "enqueuedAt");
		this.scheduledAt = scheduledAt;
		this.batch = batch;
	}

	/** The context of a task that no schedule made and that follows no batch. */
	public TaskContext(UUID id, String queue, int attempt, Instant enqueuedAt) {
		this(id, queue, attempt, enqueuedAt, null, null);
	}

	/** The task's id, as returned by {@link TaskQueue#enqueue}. */
	public UUID id() {
		return this.id;
	}

	/** The queue the task was enqueued on. */
	public String queue() {
		return this.queue;
	}

	/** Which attempt this is, 1 on the first run. */
	public int attempt() {
		return this.attempt;
	}

	/** When the task was enqueued, on the database clock. */
	public Instant enqueuedAt() {
		return this.enqueuedAt;
	}

	/**
	 * For a task of a recurring schedule, the time of its tick (or of the trigger that made it), on the database
	 * clock; {@code null} otherwise.
	 */
	public @Nullable Instant scheduledAt() {
		return this.scheduledAt;
	}

	/**
	 * For the {@code then} task of a {@link TaskQueue#enqueueBatch batch}, the batch it follows and how its tasks
	 * ended; {@code null} for every other task.
	 */
	public @Nullable BatchInfo batch() {
		return this.batch;
	}

	/** The time of the tick that made this task, empty when no recurring schedule made it. */
	public Optional<Instant> tick() {
		return Optional.ofNullable(this.scheduledAt);
	}

	/**
	 * Whether an operator has cancelled the task while it runs ({@link TaskQueueOperations#cancel(UUID)}), on any
	 * instance. Its handler thread is interrupted too; a handler that works in steps and does not wait on anything
	 * interruptible may ask between steps and return. Whatever it does, the task ends as cancelled: its transaction
	 * rolls back, and it is neither retried nor sent to the dead letters. A context that no worker made (a test's)
	 * says {@code false}.
	 */
	public boolean isCancelled() {
		return false;
	}

	@Override
	public String toString() {
		return "TaskContext[id=" + this.id + ", queue=" + this.queue + ", attempt=" + this.attempt + ", enqueuedAt="
				+ this.enqueuedAt + ((this.scheduledAt != null) ? ", scheduledAt=" + this.scheduledAt : "")
				+ ((this.batch != null) ? ", batch=" + this.batch : "") + "]";
	}

}
