package dev.taskqueue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * How far a running task has got, as its handler last said with {@link TaskContext#progress(int, String)}.
 *
 * @param percent from 0 to 100
 * @param message what the handler said with it, at most {@link TaskContext#MAX_PROGRESS_MESSAGE_LENGTH} characters;
 * {@code null} when it said nothing
 * @param updatedAt when it was written, on the database clock; for a context made by a test, when it was reported,
 * on the JVM's clock
 */
public record TaskProgress(int percent, @Nullable String message, Instant updatedAt) {
}
