/**
 * The dashboard: pages the application serves under {@code taskqueue.dashboard.path}, rendered on the server from
 * the same bounded reads as the gauges, and the per-minute counts its charts read.
 */
@NullMarked
package dev.taskqueue.internal.dashboard;

import org.jspecify.annotations.NullMarked;
