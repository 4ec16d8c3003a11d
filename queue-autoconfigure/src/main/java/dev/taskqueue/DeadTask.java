package dev.taskqueue;

import java.time.Instant;
import java.util.UUID;

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
 */
public record DeadTask(UUID id, String queue, int priority, int attempts, Instant enqueuedAt, Instant failedAt,
		String payload, String error) {

	/** The first line of {@link #error()}: the exception and its message. */
	public String errorLine() {
		int end = this.error.indexOf('\n');
		return (end >= 0) ? this.error.substring(0, end).stripTrailing() : this.error;
	}

}
