/**
 * The worker: claims tasks, runs their handlers and records the outcomes.
 */
@NullMarked
package dev.taskqueue.worker;

import org.jspecify.annotations.NullMarked;
