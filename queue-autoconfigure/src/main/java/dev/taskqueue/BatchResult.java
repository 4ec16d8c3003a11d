package dev.taskqueue;

import java.util.List;
import java.util.UUID;

/**
 * What {@link TaskQueue#enqueueBatch} enqueued.
 *
 * @param id the batch's id, to read its progress with {@link TaskQueueOperations#batch(UUID)}
 * @param taskIds the ids of the batch's tasks, in the order of the requests
 * @param thenTaskId the id the {@code then} task will have once the batch is done
 */
public record BatchResult(UUID id, List<UUID> taskIds, UUID thenTaskId) {

	public BatchResult {
		taskIds = List.copyOf(taskIds);
	}

}
