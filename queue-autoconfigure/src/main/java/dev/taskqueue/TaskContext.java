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

	/** The longest progress message kept, in UTF-16 units: longer ones are cut. */
	public static final int MAX_PROGRESS_MESSAGE_LENGTH = 500;

	private final UUID id;

	private final String queue;

	private final int attempt;

	private final Instant enqueuedAt;

	private final @Nullable Instant scheduledAt;

	private final @Nullable BatchInfo batch;

	private volatile @Nullable TaskProgress progress;

	private volatile @Nullable Object result;

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
	 * Says how far the task has got. The worker writes the latest report of each task at most once per
	 * {@code taskqueue.progress.write-interval} (a second), on a connection of its own, so it shows while the task
	 * runs ({@link TaskQueueOperations#progress(UUID)}, the actuator endpoint, the dashboard), whatever the
	 * handler's transaction does, and however often the handler calls this: a call costs no database work. The
	 * progress is deleted once the attempt ends. A context made by a test keeps it, for {@link #progress()}.
	 * @param percent from 0 to 100
	 * @param message what to show with it, or {@code null}; a longer one than
	 * {@link #MAX_PROGRESS_MESSAGE_LENGTH} characters is cut there
	 * @throws IllegalArgumentException if {@code percent} is not from 0 to 100
	 */
	public void progress(int percent, @Nullable String message) {
		if (percent < 0 || percent > 100) {
			throw new IllegalArgumentException("percent must be from 0 to 100 but was " + percent);
		}
		this.progress = new TaskProgress(percent, cut(message), Instant.now());
	}

	/** The progress last reported through this context, or {@code null} if none was. */
	public @Nullable TaskProgress progress() {
		return this.progress;
	}

	/**
	 * Gives the task's result, as a handler's return value does (this wins over a return value of {@code null}, and a
	 * value returned wins over this). Once the handler has returned, the worker writes it as JSON with the
	 * application's {@code JsonMapper}, in the transaction that completes the task, so it commits exactly when the
	 * completion does; a failed or cancelled attempt keeps nothing. It is kept for
	 * {@code taskqueue.retention.history} and read with
	 * {@link TaskQueueOperations#result(UUID, Class)}. A result whose JSON is larger than
	 * {@code taskqueue.results.max-size} (64KB) fails the attempt and sends the task to the dead letters.
	 * @param value the result, or {@code null} for none
	 */
	public void result(@Nullable Object value) {
		this.result = value;
	}

	/** The result given through this context, or {@code null} if none was. */
	public @Nullable Object result() {
		return this.result;
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

	private static @Nullable String cut(@Nullable String message) {
		if (message == null || message.length() <= MAX_PROGRESS_MESSAGE_LENGTH) {
			return message;
		}
		int end = MAX_PROGRESS_MESSAGE_LENGTH;
		if (Character.isHighSurrogate(message.charAt(end - 1))) {
			end--; // not half a character
		}
		return message.substring(0, end);
	}

	@Override
	public String toString() {
		return "TaskContext[id=" + this.id + ", queue=" + this.queue + ", attempt=" + this.attempt + ", enqueuedAt="
				+ this.enqueuedAt + ((this.scheduledAt != null) ? ", scheduledAt=" + this.scheduledAt : "")
				+ ((this.batch != null) ? ", batch=" + this.batch : "") + "]";
	}

}
