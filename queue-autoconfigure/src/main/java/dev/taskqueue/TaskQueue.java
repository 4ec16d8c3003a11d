package dev.taskqueue;

import java.util.List;
import java.util.UUID;

/**
 * Puts tasks on queues. Each call joins the caller's transaction when there is one, so a task becomes visible to
 * workers only when the business transaction commits, and disappears with it when it rolls back.
 */
public interface TaskQueue {

	/**
	 * Enqueues {@code payload} on {@code queue} to run as soon as a worker is free.
	 * @param queue the queue name
	 * @param payload the payload, written as JSON with the application's Jackson mapper
	 * @return the task's id, a time-ordered UUID
	 * @throws IllegalArgumentException if the queue name is invalid, the payload is null, cannot be written as JSON
	 * or cannot be stored (a NUL character or an unpaired surrogate in a string or a field name)
	 */
	default UUID enqueue(String queue, Object payload) {
		return enqueue(TaskRequest.of(queue, payload));
	}

	/**
	 * Enqueues one task.
	 * @param request what to enqueue
	 * @return the task's id, a time-ordered UUID
	 * @throws IllegalArgumentException if the request is null or its payload cannot be written as JSON or stored;
	 * thrown before any SQL, so the caller's transaction can go on
	 */
	UUID enqueue(TaskRequest request);

	/**
	 * Enqueues all {@code requests} with one statement.
	 * @param requests what to enqueue
	 * @return the tasks' ids, in the order of {@code requests}
	 * @throws IllegalArgumentException naming the index of the first bad request; none is written
	 */
	List<UUID> enqueueAll(List<TaskRequest> requests);

}
