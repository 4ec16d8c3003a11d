package dev.taskqueue.actuate;

import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskQueueOperations.WorkerSessionInfo;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code taskqueue} actuator endpoint, on {@link TaskQueueOperations}. Over HTTP:
 * <pre>
 * GET    /actuator/taskqueue                     queues and live sessions
 * GET    /actuator/taskqueue/{queue}             one queue
 * POST   /actuator/taskqueue/{queue}/pause       pause it in every instance (also: resume, retry-dead)
 * DELETE /actuator/taskqueue/{queue}/dead        delete its dead tasks
 * POST   /actuator/taskqueue/tasks/{id}/retry    retry a dead task
 * DELETE /actuator/taskqueue/tasks/{id}          cancel a waiting task, or delete a dead one
 * </pre>
 * The two id operations need a path segment of their own ({@code tasks}) and cannot clash with a queue of that
 * name: their other segments ({@code retry}, an id) are never queue actions, and {@code dead} is never an id.
 */
@Endpoint(id = "taskqueue")
public class TaskQueueEndpoint {

	private final TaskQueueOperations operations;

	public TaskQueueEndpoint(TaskQueueOperations operations) {
		this.operations = operations;
	}

	@ReadOperation
	public TaskQueueDescriptor taskQueue() {
		return new TaskQueueDescriptor(this.operations.queueStats(), this.operations.sessions());
	}

	/** One queue's statistics; {@code null}, hence 404, for a queue nobody knows. */
	@ReadOperation
	public QueueStats queue(@Selector String queue) {
		return this.operations.queueStats()
			.stream()
			.filter((stats) -> stats.queue().equals(queue))
			.findFirst()
			.orElse(null);
	}

	@WriteOperation
	public QueueActionResult queueAction(@Selector String queue, @Selector String action) {
		return switch (action) {
			case "pause" -> valid(() -> {
				this.operations.pause(queue);
				return new QueueActionResult(queue, action, true, null);
			});
			case "resume" -> valid(() -> {
				this.operations.resume(queue);
				return new QueueActionResult(queue, action, false, null);
			});
			case "retry-dead" -> valid(() -> new QueueActionResult(queue, action, this.operations.isPaused(queue),
					this.operations.retryAllDead(queue)));
			default -> throw new InvalidEndpointRequestException("Unknown action '" + action
					+ "': use pause, resume or retry-dead", "Unknown action");
		};
	}

	@WriteOperation
	public TaskActionResult taskAction(@Selector String tasks, @Selector String id, @Selector String action) {
		if (!tasks.equals("tasks") || !action.equals("retry")) {
			throw new InvalidEndpointRequestException("Use POST /taskqueue/tasks/{id}/retry", "Unknown operation");
		}
		UUID taskId = taskId(id);
		return new TaskActionResult(taskId, this.operations.retryDead(taskId) ? "retried" : "not-dead");
	}

	/** Deletes the dead tasks of a queue ({@code {queue}/dead}), or one task ({@code tasks/{id}}). */
	@DeleteOperation
	public Object delete(@Selector String first, @Selector String second) {
		if (second.equals("dead")) {
			return valid(() -> new QueueActionResult(first, "delete-dead", this.operations.isPaused(first),
					this.operations.deleteAllDead(first)));
		}
		if (!first.equals("tasks")) {
			throw new InvalidEndpointRequestException("Use DELETE /taskqueue/{queue}/dead or /taskqueue/tasks/{id}",
					"Unknown operation");
		}
		UUID taskId = taskId(second);
		if (this.operations.cancel(taskId)) {
			return new TaskActionResult(taskId, "cancelled");
		}
		return new TaskActionResult(taskId, this.operations.deleteDead(taskId) ? "deleted" : "not-waiting-or-dead");
	}

	private static UUID taskId(String id) {
		try {
			return UUID.fromString(id);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException("'" + id + "' is not a task id", "Invalid task id");
		}
	}

	/** Turns a bad queue name into a 400 that says what is wrong with it. */
	private static <T> T valid(Supplier<T> operation) {
		try {
			return operation.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid queue name");
		}
	}

	/**
	 * What {@code GET /actuator/taskqueue} shows.
	 *
	 * @param queues every queue that has tasks, dead tasks, a pause, or a handler here
	 * @param sessions the live instances
	 */
	public record TaskQueueDescriptor(List<QueueStats> queues, List<WorkerSessionInfo> sessions)
			implements OperationResponseBody {
	}

	/**
	 * The outcome of an operation on a queue.
	 *
	 * @param queue the queue
	 * @param action what was done
	 * @param paused whether the queue is paused now
	 * @param tasks how many dead tasks were retried or deleted; {@code null} for pause and resume
	 */
	public record QueueActionResult(String queue, String action, boolean paused, Integer tasks)
			implements OperationResponseBody {
	}

	/**
	 * The outcome of an operation on one task.
	 *
	 * @param id the task
	 * @param result {@code retried}, {@code cancelled}, {@code deleted}, or why nothing happened
	 */
	public record TaskActionResult(UUID id, String result) implements OperationResponseBody {
	}

}
