/**
 * Micrometer observations of enqueues and handler runs, which carry a trace from the producer to the handler.
 */
@NullMarked
package dev.taskqueue.internal.observation;

import org.jspecify.annotations.NullMarked;
