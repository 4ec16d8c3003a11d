package dev.taskqueue.internal.dashboard;

import dev.taskqueue.DeadTask;

/**
 * A dead task as the dashboard's page of one task reads it: its payload and error cut to their start, and how long
 * they are whole, so that the page can say how much it does not show.
 *
 * @param task the dead task, its payload and error cut
 * @param payloadBytes the whole payload's length in bytes when the task holds only its start, else 0
 * @param errorBytes the same of the error
 */
record DeadTaskView(DeadTask task, long payloadBytes, long errorBytes) {
}
