/**
 * The public API of TaskQueue: {@link dev.taskqueue.TaskHandler}, {@link dev.taskqueue.TaskQueue},
 * {@link dev.taskqueue.TaskRequest}, {@link dev.taskqueue.TaskContext},
 * {@link dev.taskqueue.NonRetryableTaskException} and, for operators, {@link dev.taskqueue.TaskQueueOperations}.
 */
@NullMarked
package dev.taskqueue;

import org.jspecify.annotations.NullMarked;
