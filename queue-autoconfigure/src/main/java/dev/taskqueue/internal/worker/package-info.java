/**
 * The worker: claims tasks, runs their handlers and records the outcomes, with its own SQL (claims, completions,
 * sessions, limited claims, and the statements of tasks with an ordering key in {@code KeyStatements}).
 * {@link dev.taskqueue.internal.worker.TaskWorker#builder} makes it.
 */
@NullMarked
package dev.taskqueue.internal.worker;

import org.jspecify.annotations.NullMarked;
