/**
 * The worker: claims tasks, runs their handlers and records the outcomes.
 */
@NullMarked
package dev.taskqueue.internal.worker;

import org.jspecify.annotations.NullMarked;
