/**
 * Recurring tasks: finds {@code @RecurringTask} methods and {@code taskqueue.schedules}, keeps their rows in the
 * database, and ticks them from one thread per instance, one task per tick cluster-wide.
 */
@NullMarked
package dev.taskqueue.internal.schedule;

import org.jspecify.annotations.NullMarked;
