package dev.taskqueue;

import java.time.Instant;
import java.util.UUID;

/**
 * What a handler may want to know about the task it runs.
 *
 * @param id the task's id, as returned by {@link TaskQueue#enqueue}
 * @param queue the queue the task was enqueued on
 * @param attempt which attempt this is, 1 on the first run
 * @param enqueuedAt when the task was enqueued, on the database clock
 */
public record TaskContext(UUID id, String queue, int attempt, Instant enqueuedAt) {
}
