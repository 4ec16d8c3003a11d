package dev.taskqueue.testing;

import java.util.UUID;

import dev.taskqueue.TaskProgress;
import org.jspecify.annotations.Nullable;

/**
 * One task run by {@link TaskQueueTester}, and what became of it.
 *
 * @param id the task's id
 * @param queue its queue
 * @param attempt the attempt this run was, 1 on the first
 * @param outcome what became of it
 * @param failure what its handler threw (or why it could not run), or {@code null} when it completed
 * @param result what the handler returned or gave to {@code TaskContext.result}, when it completed (the worker stores
 * it as JSON with the completion: {@code TaskQueueOperations.result}), else {@code null}
 * @param progress the progress the handler last reported with {@code TaskContext.progress}, or {@code null}
 */
public record TaskRun(UUID id, String queue, int attempt, Outcome outcome, @Nullable Throwable failure,
		@Nullable Object result, @Nullable TaskProgress progress) {

	/**
	 * A run that gave no result and reported no progress.
	 * @param id the task's id
	 * @param queue its queue
	 * @param attempt the attempt this run was, 1 on the first
	 * @param outcome what became of it
	 * @param failure what its handler threw, or {@code null} when it completed
	 */
	public TaskRun(UUID id, String queue, int attempt, Outcome outcome, @Nullable Throwable failure) {
		this(id, queue, attempt, outcome, failure, null, null);
	}

	/**
	 * The result as {@code type}, for a handler that returned one.
	 * @param <T> the result's type
	 * @param type the type the handler returned
	 * @return the result
	 * @throws AssertionError if the run gave no result, or one of another type
	 */
	public <T> T result(Class<T> type) {
		if (!type.isInstance(this.result)) {
			throw new AssertionError("Expected a result of type " + type.getName() + " from " + this + ", but it "
					+ ((this.result != null) ? "gave a " + this.result.getClass().getName() + ": " + this.result
							: "gave none"));
		}
		return type.cast(this.result);
	}

	@Override
	public String toString() {
		return this.queue + " task " + this.id + " (attempt " + this.attempt + "): " + this.outcome
				+ ((this.failure != null) ? ", " + this.failure : "");
	}

	/** What became of a task run. */
	public enum Outcome {

		/** The handler returned and the task's completion committed with its work: the task is gone. */
		COMPLETED,

		/** The handler failed: its work was rolled back and the task waits for its next attempt. */
		RETRIED,

		/** The task went to the dead letters: it failed its last attempt, its handler threw a
		 * {@code NonRetryableTaskException}, or its payload could not be read. */
		DEAD_LETTERED,

		/** The handler returned, but the task's claim had been lost, so its work was rolled back. */
		CLAIM_LOST

	}

}
