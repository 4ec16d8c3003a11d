package dev.taskqueue.internal.worker;

import java.time.Instant;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.OrderedKeys;
import org.jspecify.annotations.Nullable;

/**
 * A task this instance has claimed.
 *
 * @param id the task's id
 * @param queue its queue
 * @param payload its JSON payload
 * @param priority its priority
 * @param attempt the attempt this claim starts, 1 on the first
 * @param enqueuedAt when it was enqueued
 * @param runAt when it became due
 * @param claimedAt when it was claimed, on the database clock
 * @param claimedBy the session that claimed it, which fences its completion
 * @param lastError the error of the previous attempt, or {@code null}
 * @param headers the headers stored at enqueue, a JSON object of strings
 * @param orderingKey its ordering key, or {@code null}: the statements that delete a task with one make the next
 * task of its key the head (see {@link OrderedKeys})
 * @param bucket its bucket (docs/hash-sharded-claims.md), 0 in a queue of one bucket
 */
record ClaimedTask(UUID id, String queue, String payload, int priority, int attempt, Instant enqueuedAt,
		Instant runAt, Instant claimedAt, UUID claimedBy, String lastError, String headers,
		@Nullable String orderingKey, int bucket) {

	/** A claimed task in bucket 0. */
	public ClaimedTask(UUID id, String queue, String payload, int priority, int attempt, Instant enqueuedAt,
			Instant runAt, Instant claimedAt, UUID claimedBy, String lastError, String headers,
			@Nullable String orderingKey) {
		this(id, queue, payload, priority, attempt, enqueuedAt, runAt, claimedAt, claimedBy, lastError, headers,
				orderingKey, 0);
	}

	/** A claimed task without an ordering key. */
	public ClaimedTask(UUID id, String queue, String payload, int priority, int attempt, Instant enqueuedAt,
			Instant runAt, Instant claimedAt, UUID claimedBy, String lastError, String headers) {
		this(id, queue, payload, priority, attempt, enqueuedAt, runAt, claimedAt, claimedBy, lastError, headers, null);
	}

	/** A claimed task without headers. */
	public ClaimedTask(UUID id, String queue, String payload, int priority, int attempt, Instant enqueuedAt,
			Instant runAt, Instant claimedAt, UUID claimedBy, String lastError) {
		this(id, queue, payload, priority, attempt, enqueuedAt, runAt, claimedAt, claimedBy, lastError, "{}");
	}

}
