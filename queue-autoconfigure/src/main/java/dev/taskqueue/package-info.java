/**
 * The public API of TaskQueue: {@link dev.taskqueue.TaskHandler}, {@link dev.taskqueue.TaskQueue},
 * {@link dev.taskqueue.TaskRequest}, {@link dev.taskqueue.TaskContext} and
 * {@link dev.taskqueue.NonRetryableTaskException}.
 */
package dev.taskqueue;
