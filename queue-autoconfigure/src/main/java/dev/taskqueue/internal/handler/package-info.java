/**
 * Finds {@link dev.taskqueue.TaskHandler @TaskHandler} methods on beans and keeps them in a registry the worker
 * reads. Entry: {@link dev.taskqueue.internal.handler.TaskHandlerRegistry}, which also makes the annotation
 * processor for autoconfigure.
 */
@NullMarked
package dev.taskqueue.internal.handler;

import org.jspecify.annotations.NullMarked;
