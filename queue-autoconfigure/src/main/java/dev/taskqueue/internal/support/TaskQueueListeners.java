package dev.taskqueue.internal.support;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskQueueListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * All the application's {@link TaskQueueListener}s as one. A listener that throws, an {@link Error} included, is
 * logged and does not keep the others, or the task, from going on.
 */
public final class TaskQueueListeners implements TaskQueueListener {

	private static final Log logger = LogFactory.getLog(TaskQueueListeners.class);

	private final List<TaskQueueListener> listeners;

	public TaskQueueListeners(List<TaskQueueListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	/** No listeners at all. */
	public static TaskQueueListeners none() {
		return new TaskQueueListeners(List.of());
	}

	@Override
	public void enqueued(String queue, int count) {
		each((listener) -> listener.enqueued(queue, count));
	}

	@Override
	public void started(TaskContext task, Duration pickupLatency) {
		each((listener) -> listener.started(task, pickupLatency));
	}

	@Override
	public void completed(TaskContext task, Duration duration) {
		each((listener) -> listener.completed(task, duration));
	}

	@Override
	public void failed(TaskContext task, Duration duration, Throwable error, boolean dead) {
		each((listener) -> listener.failed(task, duration, error, dead));
	}

	@Override
	public void claimLost(TaskContext task) {
		each((listener) -> listener.claimLost(task));
	}

	@Override
	public void cancelled(TaskContext task, Duration duration) {
		each((listener) -> listener.cancelled(task, duration));
	}

	private void each(Consumer<TaskQueueListener> call) {
		for (TaskQueueListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (Throwable ex) {
				logger.warn("TaskQueueListener " + listener.getClass().getName() + " failed: " + ex, ex);
			}
		}
	}

}
