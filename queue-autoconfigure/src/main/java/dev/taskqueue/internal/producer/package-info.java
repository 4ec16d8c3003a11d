/**
 * The {@link dev.taskqueue.TaskQueue} that enqueues on the application's {@code DataSource}.
 */
@NullMarked
package dev.taskqueue.internal.producer;

import org.jspecify.annotations.NullMarked;
