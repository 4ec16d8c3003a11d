package dev.taskqueue;

/**
 * What an enqueue with a {@link TaskRequest#withUniqueKey(String, UniqueMode) unique key} does when a task of the
 * same queue already has that key.
 */
public enum UniqueMode {

	/**
	 * Adds nothing while a task with the key waits, is scheduled, waits to retry or runs: the enqueue returns that
	 * task's id. A task enqueued in this mode holds its key until it completes or goes to the dead letters.
	 */
	KEEP,

	/**
	 * Gives a task with the key that has not started yet the new payload, priority, due time and headers (enqueue
	 * with a delay to debounce); once it has started (it runs or waits to retry), adds a new task after it. A task
	 * enqueued in this mode holds its key until it starts.
	 */
	REPLACE

}
