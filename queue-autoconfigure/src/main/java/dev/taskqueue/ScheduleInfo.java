package dev.taskqueue;

import java.time.Instant;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * One recurring schedule as the database holds it, for {@link TaskQueueOperations#schedules()}.
 *
 * @param name the schedule's name
 * @param queue the queue its ticks' tasks run on
 * @param spec what it runs on, such as {@code cron 0 0 2 * * * Europe/Paris} or {@code fixed-rate PT1M}
 * @param nextRunAt when the next tick is due, on the database clock; {@code null} while a fixed-delay schedule
 * waits for its last tick's task to finish
 * @param paused whether it is paused
 * @param declared whether a running instance declares it; a schedule removed from the code stays listed, not
 * declared, and is not ticked
 * @param lastTickAt when its last tick was due, {@code null} before the first
 * @param lastTaskId the task of its last tick, {@code null} before the first
 * @param ticks how many tasks its ticks and triggers enqueued
 * @param skipped how many ticks were not started because the previous tick's task still waited or ran
 * @param missed how many ticks were not run because no instance ran at their time ({@code missed = SKIP})
 */
public record ScheduleInfo(String name, String queue, String spec, @Nullable Instant nextRunAt, boolean paused,
		boolean declared, @Nullable Instant lastTickAt, @Nullable UUID lastTaskId, long ticks, long skipped,
		long missed) {
}
