package dev.taskqueue.internal.observation;

import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;

/**
 * The context of a {@code taskqueue.enqueue} observation. Its carrier becomes the headers stored with the tasks,
 * so a tracing handler that injects its context here has the handler's span continue the enqueuer's trace.
 */
class EnqueueContext extends SenderContext<Map<String, String>> {

	private final String queue;

	private final int count;

	/**
	 * @param queue the queue the tasks go to, or {@code multiple} when one call enqueues on several
	 * @param count how many tasks one statement enqueues
	 * @param headers the headers to store with the tasks, filled when the observation starts
	 */
	public EnqueueContext(String queue, int count, Map<String, String> headers) {
		// The carrier is set below, before any propagator writes to it.
		super((carrier, key, value) -> {
			if (carrier != null) {
				carrier.put(key, value);
			}
		}, Kind.PRODUCER);
		setCarrier(headers);
		this.queue = queue;
		this.count = count;
	}

	public String getQueue() {
		return this.queue;
	}

	public int getCount() {
		return this.count;
	}

}
