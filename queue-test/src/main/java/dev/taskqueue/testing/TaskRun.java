package dev.taskqueue.testing;

import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * One task run by {@link TaskQueueTester}, and what became of it.
 *
 * @param id the task's id
 * @param queue its queue
 * @param attempt the attempt this run was, 1 on the first
 * @param outcome what became of it
 * @param failure what its handler threw (or why it could not run), or {@code null} when it completed
 */
public record TaskRun(UUID id, String queue, int attempt, Outcome outcome, @Nullable Throwable failure) {

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
