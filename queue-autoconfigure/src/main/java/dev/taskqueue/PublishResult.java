package dev.taskqueue;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * What {@link TaskQueue#publish} enqueued: one task on each queue subscribed to the topic. A topic no queue
 * subscribes to enqueues nothing, which is not an error.
 *
 * @param topic the topic published
 * @param tasks the id of the task enqueued on each subscribed queue, by queue name in name order
 */
public record PublishResult(String topic, Map<String, UUID> tasks) {

	public PublishResult {
		tasks = Collections.unmodifiableMap(new LinkedHashMap<>(tasks));
	}

	/** How many tasks were enqueued: the number of queues subscribed to the topic. */
	public int count() {
		return this.tasks.size();
	}

}
