package dev.taskqueue.actuate;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.taskqueue.DeadTask;
import dev.taskqueue.DeadTaskPage;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskQueueOperations.WorkerSessionInfo;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.operations.BloatWatch;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What the {@code taskqueue} endpoint answers. Payloads are shown as the JSON they are, not as text.
 */
public final class TaskQueueDescriptors {

	private TaskQueueDescriptors() {
	}

	/**
	 * One page of dead tasks, newest first.
	 *
	 * @param queue the queue listed, {@code null} for every queue
	 * @param tasks the tasks, each with the first line of its error
	 * @param next the {@code cursor} parameter that reads the next page, {@code null} on the last page
	 */
	public record DeadTaskList(@Nullable String queue, List<DeadTaskLine> tasks, @Nullable String next)
			implements OperationResponseBody {

		static DeadTaskList of(@Nullable String queue, DeadTaskPage page) {
			return new DeadTaskList(queue, page.tasks().stream().map(DeadTaskLine::of).toList(), page.next());
		}

	}

	/**
	 * A dead task in a list.
	 *
	 * @param id the task's id
	 * @param queue its queue
	 * @param attempts how many times it was tried
	 * @param failedAt when it went to the dead letters
	 * @param error the first line of its error: the exception and its message
	 * @param payload its payload
	 * @param fairnessKey the fairness key (the tenant) it was enqueued with, {@code null} without one: a list of dead
	 * tasks shows whose they are, as a tenant whose tasks all fail is the first thing to see in it
	 */
	public record DeadTaskLine(UUID id, String queue, int attempts, Instant failedAt, String error,
			@JsonRawValue String payload, @Nullable String fairnessKey) {

		static DeadTaskLine of(DeadTask task) {
			return new DeadTaskLine(task.id(), task.queue(), task.attempts(), task.failedAt(), task.errorLine(),
					task.payload(), task.fairnessKey());
		}

	}

	/**
	 * All there is of a dead task.
	 *
	 * @param id the task's id
	 * @param queue its queue
	 * @param priority its priority
	 * @param attempts how many times it was tried
	 * @param enqueuedAt when it was enqueued
	 * @param failedAt when it went to the dead letters
	 * @param errorLine the first line of its error
	 * @param error its whole error, with the stack trace
	 * @param payload its payload
	 * @param attemptLog its last attempts (at most 10), oldest first: start, end, instance, outcome, the start of
	 * the error
	 * @param fairnessKey the fairness key (the tenant) it was enqueued with, which a retry gives it back with;
	 * {@code null} without one
	 */
	public record DeadTaskDescriptor(UUID id, String queue, int priority, int attempts, Instant enqueuedAt,
			Instant failedAt, String errorLine, String error, @JsonRawValue String payload,
			List<DeadTask.Attempt> attemptLog, @Nullable String fairnessKey) implements OperationResponseBody {

		static DeadTaskDescriptor of(DeadTask task) {
			return new DeadTaskDescriptor(task.id(), task.queue(), task.priority(), task.attempts(),
					task.enqueuedAt(), task.failedAt(), task.errorLine(), task.error(), task.payload(),
					task.attemptLog(), task.fairnessKey());
		}

	}

	/**
	 * What {@code GET /actuator/taskqueue/tasks/{id}/attempts} shows: the task's story.
	 *
	 * @param id the task's id
	 * @param attempts its last attempts (at most 10), oldest first, wherever the task is (waiting, running, dead, or
	 * in the history); empty when it never failed
	 */
	public record TaskAttemptsDescriptor(UUID id, List<DeadTask.Attempt> attempts) implements OperationResponseBody {
	}

	/**
	 * What {@code GET /actuator/taskqueue/tasks/{id}/progress} shows: the running task's last written progress.
	 *
	 * @param id the task's id
	 * @param percent from 0 to 100
	 * @param message what its handler said with it, or {@code null}
	 * @param updatedAt when it was written, on the database clock
	 */
	public record TaskProgressDescriptor(UUID id, int percent, @Nullable String message, Instant updatedAt)
			implements OperationResponseBody {
	}

	/**
	 * What {@code GET /actuator/taskqueue/tasks/{id}/result} shows.
	 *
	 * @param id the task's id
	 * @param queue the task's queue
	 * @param result the result its handler gave, as JSON, as the redactor shows payloads
	 */
	public record TaskResultDescriptor(UUID id, String queue, @JsonRawValue String result)
			implements OperationResponseBody {
	}

	/**
	 * What {@code GET /actuator/taskqueue} shows.
	 *
	 * @param queues every queue that has tasks, dead tasks, a pause, or a handler here
	 * @param sessions the live instances
	 * @param database the database TaskQueue runs on, as resolved at startup ({@code null} if unknown)
	 * @param bloat the task tables' dead rows and size and the xmin horizon's holder, with their warnings
	 * ({@code null} on CockroachDB and YugabyteDB, with {@code taskqueue.bloat.enabled=false}, or when it could not
	 * be read)
	 */
	public record TaskQueueDescriptor(List<QueueStats> queues, List<WorkerSessionInfo> sessions,
			@Nullable DatabaseInfo database, BloatWatch.@Nullable Report bloat) implements OperationResponseBody {
	}

	/**
	 * The database TaskQueue runs on ({@code taskqueue.database}, detected or set) and what it uses of it.
	 *
	 * @param name postgresql, cockroachdb or yugabytedb
	 * @param listenNotify whether enqueues NOTIFY and workers LISTEN (else they poll)
	 * @param advisoryLocks whether the migration lock is an advisory lock (else a row lock)
	 */
	public record DatabaseInfo(String name, boolean listenNotify, boolean advisoryLocks) {

		static @Nullable DatabaseInfo of(@Nullable DatabaseDialect dialect) {
			if (dialect == null) {
				return null;
			}
			return new DatabaseInfo(dialect.database().propertyValue(), dialect.listenNotify(),
					dialect.advisoryLocks());
		}

	}

	/**
	 * The outcome of an operation on a queue.
	 *
	 * @param queue the queue
	 * @param action what was done
	 * @param paused whether the queue is paused now
	 * @param tasks how many tasks were retried or deleted; {@code null} for pause and resume
	 */
	public record QueueActionResult(String queue, String action, boolean paused, @Nullable Integer tasks)
			implements OperationResponseBody {
	}

	/**
	 * The outcome of an operation on one task.
	 *
	 * @param id the task
	 * @param result {@code retried}, {@code cancelled} or {@code deleted}
	 */
	public record TaskActionResult(UUID id, String result) implements OperationResponseBody {
	}

	/**
	 * The body of a 4xx answer.
	 *
	 * @param error what was wrong with the request
	 */
	public record ErrorBody(String error) implements OperationResponseBody {
	}

}
