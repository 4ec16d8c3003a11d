/**
 * All of TaskQueue's SQL: the repositories the producer, the worker and the operations run on.
 */
@NullMarked
package dev.taskqueue.internal.jdbc;

import org.jspecify.annotations.NullMarked;
