package dev.taskqueue;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * A task in the dead letters: it will not be tried again unless an operator retries it.
 *
 * @param id the task's id, the one {@link TaskQueue#enqueue} returned
 * @param queue its queue
 * @param priority its priority
 * @param attempts how many times it was tried
 * @param enqueuedAt when it was enqueued, on the database clock
 * @param failedAt when it went to the dead letters, on the database clock
 * @param payload its payload, as the JSON text it was stored as
 * @param error what ended it: the exception, its message and stack trace (at most about 8,000 characters), or
 * why the payload could not be read
 * @param attemptLog its last attempts, oldest first, at most 10 (see docs/failure-semantics.md); empty where it was
 * not read (the pages of dead tasks read it only for one task)
 * @param fairnessKey the fairness key it was enqueued with ({@link TaskRequest#withFairnessKey}), which a retry gives
 * it back with; {@code null} when it had none, or went to the dead letters before schema V22 kept it
 */
public record DeadTask(UUID id, String queue, int priority, int attempts, Instant enqueuedAt, Instant failedAt,
		String payload, String error, List<Attempt> attemptLog, @Nullable String fairnessKey) {

	public DeadTask {
		attemptLog = List.copyOf(attemptLog);
	}

	/** A dead task without a fairness key. */
	public DeadTask(UUID id, String queue, int priority, int attempts, Instant enqueuedAt, Instant failedAt,
			String payload, String error, List<Attempt> attemptLog) {
		this(id, queue, priority, attempts, enqueuedAt, failedAt, payload, error, attemptLog, null);
	}

	/** A dead task without its attempt log or a fairness key. */
	public DeadTask(UUID id, String queue, int priority, int attempts, Instant enqueuedAt, Instant failedAt,
			String payload, String error) {
		this(id, queue, priority, attempts, enqueuedAt, failedAt, payload, error, List.of(), null);
	}


	/** The first line of {@link #error()}: the exception and its message. */
	public String errorLine() {
		int end = this.error.indexOf('\n');
		return (end >= 0) ? this.error.substring(0, end).stripTrailing() : this.error;
	}

	/**
	 * One attempt of a task, as its attempt log keeps it (see docs/failure-semantics.md).
	 *
	 * @param attempt its number, 1 for the first run
	 * @param startedAt when it was claimed, on the database clock; {@code null} when not known
	 * @param endedAt when it ended, on the database clock
	 * @param instance the name of the instance that ran it; {@code null} when its session was gone already
	 * @param outcome how it ended: {@code failed} (to be retried), {@code timed out}, {@code dead},
	 * {@code cancelled}, {@code lost} (its instance stopped beating and the claim was taken back) or
	 * {@code completed}
	 * @param error the start of its error, at most 500 characters; {@code null} when it ended without one
	 */
	public record Attempt(int attempt, @Nullable Instant startedAt, Instant endedAt, @Nullable String instance,
			String outcome, @Nullable String error) {
	}

}
