package dev.taskqueue.internal.observation;

import java.util.Map;

import dev.taskqueue.TaskContext;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * The context of a {@code taskqueue.handle} observation: the task, and the headers stored with it at enqueue, from
 * which a tracing handler takes the enqueuer's trace context.
 */
class HandleContext extends ReceiverContext<Map<String, String>> {

	private final TaskContext task;

	public HandleContext(TaskContext task, Map<String, String> headers) {
		super(Map::get, Kind.CONSUMER);
		setCarrier(headers);
		this.task = task;
	}

	public TaskContext getTask() {
		return this.task;
	}

}
