/**
 * Finds {@link dev.taskqueue.TaskHandler @TaskHandler} methods on beans and keeps them in a registry the worker
 * reads.
 */
@NullMarked
package dev.taskqueue.handler;

import org.jspecify.annotations.NullMarked;
