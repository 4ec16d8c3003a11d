package dev.taskqueue.internal.dashboard;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.DeadTask;

import org.jspecify.annotations.Nullable;

/**
 * A waiting or running task as an operator sees it.
 *
 * @param id the task's id
 * @param queue its queue
 * @param payload its payload, as stored JSON text; only its start when read for a page (DashboardQueries)
 * @param priority its priority
 * @param runAt when it is due
 * @param enqueuedAt when it was enqueued
 * @param attempt how many times it was claimed
 * @param claimedBy the session running it, {@code null} while it waits
 * @param claimedAt when it was claimed, {@code null} while it waits
 * @param lastError the error of its last failed attempt, {@code null} if none failed
 * @param uniqueKey its unique key, {@code null} if it has none
 * @param orderingKey its ordering key, {@code null} if it has none
 * @param orderingSeq its place among the tasks of its ordering key, {@code null} without a key
 * @param fairnessKey its fairness key (docs/fairness.md), {@code null} if it has none
 * @param payloadBytes the whole payload's length in bytes when {@code payload} is only its start (the page of one
 * task), else 0
 * @param errorBytes the same of {@code lastError}
 * @param attempts its attempt log (AttemptLog), oldest first: empty when it never failed, or on the lists
 */
record TaskView(UUID id, String queue, String payload, int priority, Instant runAt, Instant enqueuedAt,
		int attempt, @Nullable UUID claimedBy, @Nullable Instant claimedAt, @Nullable String lastError,
		@Nullable String uniqueKey, @Nullable String orderingKey, @Nullable Long orderingSeq,
		@Nullable String fairnessKey, long payloadBytes, long errorBytes, List<DeadTask.Attempt> attempts) {

	/** The {@code claimed_by} of a task held behind an earlier task of its ordering key (see OrderedKeys). */
	static final UUID HELD = new UUID(0, 0);

	/**
	 * This task with {@code payload}, {@code lastError} and {@code attempts} shown instead of its own (a
	 * TaskRedactor's).
	 */
	TaskView withText(String payload, @Nullable String lastError, List<DeadTask.Attempt> attempts) {
		return new TaskView(this.id, this.queue, payload, this.priority, this.runAt, this.enqueuedAt, this.attempt,
				this.claimedBy, this.claimedAt, lastError, this.uniqueKey, this.orderingKey, this.orderingSeq,
				this.fairnessKey, this.payloadBytes, this.errorBytes, attempts);
	}

	/** This task with its attempt log. */
	TaskView withAttempts(List<DeadTask.Attempt> attempts) {
		return withText(this.payload, this.lastError, attempts);
	}

	/** Whether it waits behind an earlier task of its ordering key. */
	boolean held() {
		return HELD.equals(this.claimedBy);
	}

	/** Whether an instance runs it now. */
	boolean running() {
		return this.claimedBy != null && !held();
	}

	/** Microseconds since the epoch of {@code instant}, as keyset cursors hold them. */
	static long micros(Instant instant) {
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
	}

}
