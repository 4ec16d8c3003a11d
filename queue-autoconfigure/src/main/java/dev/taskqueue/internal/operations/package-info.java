/**
 * {@link dev.taskqueue.TaskQueueOperations} on the database, and the pruning of old dead letters and history.
 */
@NullMarked
package dev.taskqueue.internal.operations;

import org.jspecify.annotations.NullMarked;
