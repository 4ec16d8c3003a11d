package dev.taskqueue;

import java.time.Duration;

/**
 * Hears what happens to tasks in this application instance, for metrics, tracing or logs of your own. Every
 * {@code TaskQueueListener} bean is called. Methods run on the threads that enqueue or run tasks: keep them quick
 * and do not throw (what they throw is logged and ignored).
 */
public interface TaskQueueListener {

	/** {@code count} tasks were enqueued on {@code queue} (within the caller's transaction, which may still roll back). */
	default void enqueued(String queue, int count) {
	}

	/**
	 * A task's handler is about to run.
	 * @param task the task
	 * @param pickupLatency from when the task was due to when it was claimed, on the database clock
	 */
	default void started(TaskContext task, Duration pickupLatency) {
	}

	/** A task's handler returned and its completion committed. */
	default void completed(TaskContext task, Duration duration) {
	}

	/**
	 * A task failed: its handler threw or timed out, its payload could not be read, or it ran out of attempts.
	 * @param task the task
	 * @param duration how long its handler ran ({@link Duration#ZERO} when it did not run)
	 * @param error what went wrong
	 * @param dead whether the task went to the dead letters ({@code false}: it will be retried)
	 */
	default void failed(TaskContext task, Duration duration, Throwable error, boolean dead) {
	}

	/** A task's handler finished but its claim had been lost, so its work was rolled back. */
	default void claimLost(TaskContext task) {
	}

	/**
	 * A task claimed by this instance was cancelled ({@link TaskQueueOperations#cancel(java.util.UUID)}) while it ran
	 * or waited to start here: its work was rolled back, and it is neither retried nor dead.
	 * @param task the task
	 * @param duration how long its handler ran ({@link Duration#ZERO} when it did not start)
	 */
	default void cancelled(TaskContext task, Duration duration) {
	}

}
