/**
 * Micrometer meters of the queues and of the tasks run in this instance.
 */
@NullMarked
package dev.taskqueue.internal.metrics;

import org.jspecify.annotations.NullMarked;
