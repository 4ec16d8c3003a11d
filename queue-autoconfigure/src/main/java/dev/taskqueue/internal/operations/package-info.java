/**
 * {@link dev.taskqueue.TaskQueueOperations} on the database, the pruning of old dead letters and history, the topics'
 * subscriptions, the batch sweep, the bloat figures and the kept results. Entry: {@link dev.taskqueue.internal.operations.OperationsConfiguration},
 * which autoconfigure imports with plain settings; everything else is package-private but the bloat reports
 * ({@link dev.taskqueue.internal.operations.BloatWatch}) and who acts ({@link dev.taskqueue.internal.operations.ActingAs}).
 */
@NullMarked
package dev.taskqueue.internal.operations;

import org.jspecify.annotations.NullMarked;
