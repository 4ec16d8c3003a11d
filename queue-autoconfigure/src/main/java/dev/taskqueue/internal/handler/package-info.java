/**
 * Finds {@link dev.taskqueue.TaskHandler @TaskHandler} methods on beans and keeps them in a registry the worker
 * reads.
 */
@NullMarked
package dev.taskqueue.internal.handler;

import org.jspecify.annotations.NullMarked;
