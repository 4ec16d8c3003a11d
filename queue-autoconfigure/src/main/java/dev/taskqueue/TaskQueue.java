package dev.taskqueue;

import java.util.List;
import java.util.UUID;

/**
 * Puts tasks on queues. Each call joins the caller's transaction when there is one, so a task becomes visible to
 * workers only when the business transaction commits, and disappears with it when it rolls back. TaskQueue does not
 * run the caller's transaction again: a serialization failure (SQLSTATE 40001, routine on CockroachDB) reaches the
 * caller as Spring's {@code CannotAcquireLockException}, and the caller retries its transaction.
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
	 * @return the task's id, a time-ordered UUID; for a request with a {@link TaskRequest#withUniqueKey unique key}
	 * that a task already holds, that task's id
	 * @throws IllegalArgumentException if the request is null or its payload cannot be written as JSON or stored;
	 * thrown before any SQL, so the caller's transaction can go on
	 */
	UUID enqueue(TaskRequest request);

	/**
	 * Enqueues one task like {@link #enqueue(TaskRequest)} and says whether the request was a duplicate: whether a
	 * task already held its {@link TaskRequest#withUniqueKey unique key}, so that no task was added.
	 * @param request what to enqueue
	 * @return the id the request ended up with, and whether it was a duplicate
	 * @throws IllegalArgumentException as {@link #enqueue(TaskRequest)} does
	 */
	EnqueueResult offer(TaskRequest request);

	/**
	 * Enqueues all {@code requests} with one statement. Requests with a {@link TaskRequest#withUniqueKey unique key}
	 * are deduplicated against each other as if enqueued one after the other (with {@link UniqueMode#REPLACE}, the
	 * last one's payload wins) and against the tasks already there.
	 * @param requests what to enqueue
	 * @return the tasks' ids, in the order of {@code requests}; a duplicate gets the id of the task it ended up as
	 * @throws IllegalArgumentException naming the index of the first bad request, or of a request that uses a key of
	 * its queue with another mode than an earlier request of the list; none is written
	 */
	List<UUID> enqueueAll(List<TaskRequest> requests);

	/**
	 * {@link #enqueueAll(List)} that says, for each request, whether it was a duplicate: of a task already there or
	 * of an earlier request of the list.
	 * @param requests what to enqueue
	 * @return what each request ended up as, in the order of {@code requests}
	 * @throws IllegalArgumentException as {@link #enqueueAll(List)} does
	 */
	List<EnqueueResult> offerAll(List<TaskRequest> requests);

	/**
	 * Enqueues {@code payload} on every queue subscribed to {@code topic} (with
	 * {@link TaskHandler#topics() @TaskHandler(topics = ...)}), one task each, in one statement. Subscriptions are
	 * stored in the database when an instance with the handler starts, so a queue whose service is not running
	 * still gets its task.
	 * @param topic the topic: 1 to 100 letters, digits, {@code .}, {@code _}, {@code -} or {@code :}
	 * @param payload the payload, written as JSON with the application's Jackson mapper
	 * @return the tasks enqueued, one per subscribed queue; none (and no error) when no queue subscribes
	 * @throws IllegalArgumentException if the topic name is invalid or the payload cannot be written or stored;
	 * thrown before any SQL
	 */
	PublishResult publish(String topic, Object payload);

	/**
	 * Enqueues {@code tasks} as a batch, and {@code then} once every one of them has completed or gone to the dead
	 * letters. {@code then} is enqueued exactly once, by whichever instance first finds the batch done; its handler
	 * reads the batch's id and counts from {@link TaskContext#batch()}. An empty {@code tasks} list makes a batch
	 * that is done at once: {@code then} follows with all counts 0.
	 * @param tasks the batch's tasks; none may have a unique key
	 * @param then the task to enqueue when the batch is done; it may not have a unique key. Its delay counts from
	 * then
	 * @return the batch's id, its tasks' ids and the id {@code then} will have
	 * @throws IllegalArgumentException naming the first bad request; nothing is written
	 */
	BatchResult enqueueBatch(List<TaskRequest> tasks, TaskRequest then);

}
