package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.TaskContext;

/**
 * What became of a claimed task's attempt that another stage must write: the {@link OutcomeRecorder} writes at once
 * those that need a statement of their own ({@link Written}: retry later, dead, released) and keeps them in the
 * {@link Mailbox} while they cannot be written; what the claim loop's next statement carries waits there too
 * ({@link DeletePending}, {@link KeyLeftHeadless}). A completion written with the task's own transaction, and a
 * claim found lost by it, need no other stage: the completion mode tells the listeners itself.
 */
sealed interface Outcome {

	/**
	 * A {@code BATCHED} handler returned: the task's delete waits to be written with others, by the claim loop's next
	 * claim of a {@code BATCHED} queue or by the flusher ({@link CompletionFlusher}).
	 */
	record DeletePending(ClaimedTask task, TaskContext context, Duration duration) implements Outcome {
	}

	/**
	 * A completion that committed deleted the head of {@code key} on {@code queue} and left the key's next task held:
	 * the claim loop's next claim of the queue hands it off (see {@code TaskRepository#handOffAndClaim}). Posted by
	 * the {@link Completer}.
	 */
	record KeyLeftHeadless(String queue, String key) implements Outcome {
	}

	/** An outcome written by a statement of its own, fenced by the task's claim; kept in the mailbox until it is. */
	sealed interface Written extends Outcome {

		/** Writes it; {@code false} when the claim was lost, which changes nothing. */
		boolean writeWith(TaskRepository tasks);

	}

	/**
	 * The attempt failed: the task runs again after {@code delay}. {@code timedOut}: its handler overran its
	 * timeout, as the task's attempt log says.
	 */
	record RetryLater(ClaimedTask task, Duration delay, String error, boolean timedOut) implements Written {

		@Override
		public boolean writeWith(TaskRepository tasks) {
			return tasks.retryLater(this.task, this.delay, this.error, this.timedOut);
		}

	}

	/**
	 * The task goes to the dead letters, showing at most {@code maxAttempts} attempts; {@code timedOut}: its last
	 * handler overran its timeout, as the task's attempt log says.
	 */
	record Dead(ClaimedTask task, String error, int maxAttempts, boolean timedOut) implements Written {

		@Override
		public boolean writeWith(TaskRepository tasks) {
			return tasks.moveToDead(this.task, this.error, this.maxAttempts, this.timedOut);
		}

	}

	/**
	 * The task was cancelled while it was claimed here (its row is gone, so nothing of its attempt can commit): its
	 * session stops looking for the request.
	 */
	record Cancelled(ClaimedTask task) implements Written {

		@Override
		public boolean writeWith(TaskRepository tasks) {
			tasks.endCancelled(this.task);
			return true;
		}

	}

	/** Claimed tasks of {@code session} that did not run to their end are ready again, no attempt used up. */
	record Released(UUID session, List<UUID> ids) implements Written {

		@Override
		public boolean writeWith(TaskRepository tasks) {
			tasks.releaseUnstarted(this.ids, this.session);
			return true;
		}

	}

}
