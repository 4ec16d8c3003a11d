/**
 * The SQL the producer sends and what several concerns share: the repositories of the task, queue and dead-letter
 * tables, and the parts the worker's statements are built from. Each concern's own SQL lives in
 * its package.
 */
@NullMarked
package dev.taskqueue.internal.jdbc;

import org.jspecify.annotations.NullMarked;
