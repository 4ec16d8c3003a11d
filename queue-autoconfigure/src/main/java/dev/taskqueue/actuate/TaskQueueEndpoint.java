package dev.taskqueue.actuate;

import java.security.Principal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

import dev.taskqueue.DeadTask;
import dev.taskqueue.DeadTaskPage;
import dev.taskqueue.QueueName;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.TaskFilter;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.actuate.TaskQueueDescriptors.DeadTaskDescriptor;
import dev.taskqueue.actuate.TaskQueueDescriptors.DeadTaskList;
import dev.taskqueue.actuate.TaskQueueDescriptors.QueueActionResult;
import dev.taskqueue.actuate.TaskQueueDescriptors.TaskActionResult;
import dev.taskqueue.actuate.TaskQueueDescriptors.TaskAttemptsDescriptor;
import dev.taskqueue.actuate.TaskQueueDescriptors.TaskProgressDescriptor;
import dev.taskqueue.actuate.TaskQueueDescriptors.TaskQueueDescriptor;
import dev.taskqueue.actuate.TaskQueueDescriptors.TaskResultDescriptor;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.operations.ActingAs;
import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.internal.support.Redaction;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.context.annotation.ImportRuntimeHints;

import static dev.taskqueue.actuate.EndpointResponses.badRequest;
import static dev.taskqueue.actuate.EndpointResponses.notATaskId;
import static dev.taskqueue.actuate.EndpointResponses.notFound;
import static dev.taskqueue.actuate.EndpointResponses.ok;
import static dev.taskqueue.actuate.EndpointResponses.taskId;
import static dev.taskqueue.actuate.EndpointResponses.unknownQueue;
import static dev.taskqueue.actuate.EndpointResponses.valid;

/**
 * The {@code taskqueue} actuator endpoint, on {@link TaskQueueOperations}. Over HTTP:
 * <pre>
 * GET    /actuator/taskqueue                     queues and live sessions
 * GET    /actuator/taskqueue/{queue}             one queue
 * GET    /actuator/taskqueue/{queue}/dead        its dead tasks, newest first ({@code *} for every queue);
 *                                                parameters limit (50, at most 500) and cursor (a page's next)
 * GET    /actuator/taskqueue/tasks/{id}          a dead task, with its payload and whole error
 * GET    /actuator/taskqueue/tasks/{id}/progress the running task's progress (TaskContext.progress)
 * GET    /actuator/taskqueue/tasks/{id}/result   the completed task's result, kept for taskqueue.retention.history
 * POST   /actuator/taskqueue/{queue}/pause       pause it in every instance (also: resume, retry-dead,
 *                                                retry-waiting: its waiting tasks due now)
 * POST   /actuator/taskqueue/{queue}             with a JSON body {"action": "retry-dead" or "retry-waiting",
 *                                                "error", "failedFrom", "failedBefore"}: retry what they match
 * DELETE /actuator/taskqueue/{queue}/dead        delete its dead tasks that error, failedFrom and failedBefore
 *                                                match, or all of them with all=true
 * DELETE /actuator/taskqueue/{queue}/waiting     delete its waiting tasks, as dead; running ones are left alone
 * POST   /actuator/taskqueue/tasks/{id}/retry    retry a dead task
 * DELETE /actuator/taskqueue/tasks/{id}          cancel a waiting or running task, or delete a dead one
 * GET    /actuator/taskqueue/schedules/*         recurring schedules (also schedules/{name})
 * POST   /actuator/taskqueue/schedules/{name}/pause  pause a schedule in every instance (also: resume, trigger)
 * </pre>
 * A queue is known when {@code GET /actuator/taskqueue} lists it: it has a handler in this instance, or tasks, dead
 * tasks or a pause in the database. Any other queue, and any task id that matches no task, is answered with 404;
 * bad input (an invalid queue name, task id, limit or cursor) with 400. Both carry {@code {"error": "..."}}. Pausing
 * a queue before it exists anywhere is for {@link TaskQueueOperations#pause(String)}: over HTTP it is most likely a
 * typo.
 * <p>
 * The id operations have a path segment of their own ({@code tasks}) and cannot clash with a queue of that name:
 * their other segments ({@code retry}, an id) are never queue actions, and {@code dead} or {@code waiting} is never
 * an id. {@code *} is never a queue name.
 * <p>
 * Read-only unless the application sets {@code management.endpoint.taskqueue.access=unrestricted}: the writes act on
 * every instance, and an exposed endpoint is often reachable without a login, where a body-less cross-site POST
 * (a form on any page) would pause a queue. A read-only endpoint's writes are not mapped at all (HTTP 405).
 * Who may call them is the application's security configuration, as for every actuator endpoint
 * (docs/dashboard.md maps them to the dashboard's operate authority). Each write is recorded in the audit log with
 * the principal Spring Security authenticated for the call ({@code anonymous} without one, as over JMX), through
 * {@code actuator}.
 */
@Endpoint(id = "taskqueue", defaultAccess = Access.READ_ONLY)
@ImportRuntimeHints(TaskQueueEndpointRuntimeHints.class)
public class TaskQueueEndpoint {

	private static final Log logger = LogFactory.getLog(TaskQueueEndpoint.class);

	private static final String ALL_QUEUES = "*";

	private final TaskQueueOperations operations;

	private final @Nullable DatabaseDialect database;

	private final TaskRedactor redactor;

	private final @Nullable BloatWatch bloat;

	private final @Nullable Function<UUID, Optional<Map.Entry<String, String>>> results;

	private Show showValues = Show.ALWAYS;

	private Set<String> roles = Set.of();

	public TaskQueueEndpoint(TaskQueueOperations operations) {
		this(operations, null);
	}

	/** An endpoint that also shows the database TaskQueue runs on. */
	public TaskQueueEndpoint(TaskQueueOperations operations, @Nullable DatabaseDialect database) {
		this(operations, database, TaskRedactor.NONE);
	}

	/** An endpoint that shows dead tasks' payloads and errors as {@code redactor} does. */
	public TaskQueueEndpoint(TaskQueueOperations operations, @Nullable DatabaseDialect database,
			TaskRedactor redactor) {
		this(operations, database, redactor, null);
	}

	/** An endpoint that also shows the task tables' bloat figures, as {@code bloat} reads them. */
	public TaskQueueEndpoint(TaskQueueOperations operations, @Nullable DatabaseDialect database,
			TaskRedactor redactor, @Nullable BloatWatch bloat) {
		this(operations, database, redactor, bloat, null);
	}

	/**
	 * An endpoint that shows tasks' results through {@code redactor} as it shows payloads, read from
	 * {@code results} (a task's queue and its result as JSON text, if kept); without it, a result shows only when
	 * {@code redactor} is {@link TaskRedactor#NONE}.
	 */
	public TaskQueueEndpoint(TaskQueueOperations operations, @Nullable DatabaseDialect database,
			TaskRedactor redactor, @Nullable BloatWatch bloat,
			@Nullable Function<UUID, Optional<Map.Entry<String, String>>> results) {
		this.results = results;
		this.operations = operations;
		this.database = database;
		this.redactor = redactor;
		this.bloat = bloat;
	}

	/**
	 * Shows tasks' payloads and results only as {@code showValues} says, to the users with one of {@code roles}
	 * when it is {@link Show#WHEN_AUTHORIZED} (any authenticated user when empty); hidden otherwise, as Spring Boot's
	 * {@code env} endpoint hides values. Without this call they show (through the redactor).
	 * @return this endpoint
	 */
	public TaskQueueEndpoint showingValues(Show showValues, Set<String> roles) {
		this.showValues = showValues;
		this.roles = Set.copyOf(roles);
		return this;
	}

	/** The redactor for a caller: the endpoint's, with payloads and results hidden from one not shown values. */
	private TaskRedactor redactorFor(SecurityContext security) {
		return this.showValues.isShown(security, this.roles) ? this.redactor
				: Redaction.effective(this.redactor, true);
	}

	@ReadOperation
	public TaskQueueDescriptor taskQueue() {
		return new TaskQueueDescriptor(this.operations.queueStats(), this.operations.sessions(),
				TaskQueueDescriptors.DatabaseInfo.of(this.database), bloat());
	}

	/** The last bloat report while it is fresh (at most one read per refresh interval); null if unavailable. */
	private BloatWatch.@Nullable Report bloat() {
		if (this.bloat == null) {
			return null;
		}
		try {
			return this.bloat.current();
		}
		catch (RuntimeException ex) {
			// The queues and sessions are still worth an answer; the gauges' thread logs the failure at WARN.
			logger.debug("Could not read the TaskQueue tables' bloat figures", ex);
			return null;
		}
	}

	@ReadOperation
	public WebEndpointResponse<Object> queue(@Selector String queue) {
		return valid(() -> {
			QueueName.requireValid(queue, "queue");
			return this.operations.queueStats()
				.stream()
				.filter((stats) -> stats.queue().equals(queue))
				.findFirst()
				.map(EndpointResponses::ok)
				.orElseGet(() -> unknownQueue(queue));
		});
	}

	/** A queue's dead tasks ({@code {queue}/dead}), or one dead task ({@code tasks/{id}}). */
	@ReadOperation
	public WebEndpointResponse<Object> read(@Selector String first, @Selector String second,
			@Nullable String limit, @Nullable String cursor, SecurityContext security) {
		TaskRedactor redactor = redactorFor(security);
		if (first.equals(ScheduleEndpointActions.SEGMENT)) {
			return new ScheduleEndpointActions(this.operations).read(second);
		}
		if (second.equals("dead")) {
			String queue = first.equals(ALL_QUEUES) ? null : first;
			return valid(() -> {
				int size = EndpointResponses.limit(limit);
				if (queue != null && !isKnown(queue)) {
					return unknownQueue(queue);
				}
				DeadTaskPage page = this.operations.deadTasks(queue, size, cursor);
				return ok(DeadTaskList.of(queue, new DeadTaskPage(
						page.tasks().stream().map((task) -> Redaction.apply(redactor, task)).toList(), page.next())));
			});
		}
		if (!first.equals("tasks")) {
			return badRequest("Use GET /taskqueue/{queue}/dead or /taskqueue/tasks/{id}");
		}
		UUID id = taskId(second);
		if (id == null) {
			return notATaskId(second);
		}
		return this.operations.deadTask(id)
			.map((task) -> ok(DeadTaskDescriptor.of(Redaction.apply(redactor, task))))
			.orElseGet(() -> notFound("No dead task " + id));
	}

	/**
	 * Pauses or resumes a queue, retries all its dead tasks, or makes all its waiting tasks due now, in chunks
	 * (TaskQueueOperations.retryDead(TaskFilter) and retryWaiting(TaskFilter)). No parameters: a write operation
	 * with any takes a JSON body only, and these are posted without one ({@link #retryMatching} takes a filter).
	 */
	@WriteOperation
	public WebEndpointResponse<Object> queueAction(@Selector String queue, @Selector String action) {
		try (ActingAs acting = acting()) {
			return act(queue, action);
		}
	}

	private WebEndpointResponse<Object> act(String queue, String action) {
		if (!List.of("pause", "resume", "retry-dead", "retry-waiting").contains(action)) {
			return badRequest("Unknown action '" + action + "': use pause, resume, retry-dead or retry-waiting");
		}
		return valid(() -> {
			if (!isKnown(queue)) {
				return unknownQueue(queue);
			}
			return ok(switch (action) {
				case "pause" -> {
					this.operations.pause(queue);
					yield new QueueActionResult(queue, action, true, null);
				}
				case "resume" -> {
					this.operations.resume(queue);
					yield new QueueActionResult(queue, action, false, null);
				}
				case "retry-waiting" -> new QueueActionResult(queue, action, this.operations.isPaused(queue),
						this.operations.retryWaiting(TaskFilter.queue(queue)));
				default -> new QueueActionResult(queue, action, this.operations.isPaused(queue),
						this.operations.retryDead(TaskFilter.queue(queue)));
			});
		});
	}

	/**
	 * Retries the dead tasks ({@code "action": "retry-dead"}) or makes due now the waiting tasks
	 * ({@code "retry-waiting"}) of a queue that the filter of the JSON body matches: {@code error} (text the error
	 * contains, any case), {@code failedFrom} and {@code failedBefore} (ISO instants), in chunks. A body without a
	 * condition takes them all, as {@code POST {queue}/retry-dead} does.
	 */
	@WriteOperation
	public WebEndpointResponse<Object> retryMatching(@Selector String queue, String action, @Nullable String error,
			@Nullable String failedFrom, @Nullable String failedBefore) {
		try (ActingAs acting = acting()) {
			if (!action.equals("retry-dead") && !action.equals("retry-waiting")) {
				return badRequest("Unknown action '" + action + "': POST {queue} with a filter takes retry-dead or "
						+ "retry-waiting (pause and resume are POST {queue}/pause and {queue}/resume)");
			}
			return valid(() -> {
				TaskFilter filter = filter(queue, error, failedFrom, failedBefore);
				if (!isKnown(queue)) {
					return unknownQueue(queue);
				}
				return ok(new QueueActionResult(queue, action, this.operations.isPaused(queue),
						action.equals("retry-dead") ? this.operations.retryDead(filter)
								: this.operations.retryWaiting(filter)));
			});
		}
	}

	/**
	 * A running task's progress ({@code tasks/{id}/progress}), a completed task's result ({@code tasks/{id}/result})
	 * or any task's attempts ({@code tasks/{id}/attempts}).
	 */
	@ReadOperation
	public WebEndpointResponse<Object> taskDetail(@Selector String tasks, @Selector String id, @Selector String what,
			SecurityContext security) {
		if (!tasks.equals("tasks")
				|| !(what.equals("progress") || what.equals("result") || what.equals("attempts"))) {
			return badRequest("Use GET /taskqueue/tasks/{id}/progress, /taskqueue/tasks/{id}/result or "
					+ "/taskqueue/tasks/{id}/attempts");
		}
		UUID taskId = taskId(id);
		if (taskId == null) {
			return notATaskId(id);
		}
		if (what.equals("attempts")) {
			// Without the queue a redactor cannot be asked: errors show only when nothing is redacted.
			List<DeadTask.Attempt> attempts = this.operations.attempts(taskId);
			return ok(new TaskAttemptsDescriptor(taskId, (this.redactor == TaskRedactor.NONE) ? attempts
					: attempts.stream()
						.map((a) -> new DeadTask.Attempt(a.attempt(), a.startedAt(), a.endedAt(), a.instance(),
								a.outcome(), (a.error() != null) ? "(hidden)" : null))
						.toList()));
		}
		if (what.equals("progress")) {
			return this.operations.progress(taskId)
				.map((progress) -> ok(new TaskProgressDescriptor(taskId, progress.percent(), progress.message(),
						progress.updatedAt())))
				.orElseGet(() -> notFound("No progress of a running task " + taskId));
		}
		return result(taskId, redactorFor(security)).map(EndpointResponses::ok)
			.orElseGet(() -> notFound("No result of task " + taskId + " (it has not completed, gave none, or "
					+ "completed longer ago than taskqueue.retention.history)"));
	}

	private Optional<Object> result(UUID id, TaskRedactor redactor) {
		if (this.results != null) {
			return this.results.apply(id)
				.map((kept) -> new TaskResultDescriptor(id, kept.getKey(),
						redactor.payload(kept.getKey(), kept.getValue())));
		}
		// Without the queue a redactor cannot be asked: a result shows only when nothing is redacted.
		return this.operations.result(id, JsonNode.class)
			.map((json) -> (redactor == TaskRedactor.NONE) ? json.toString() : TaskRedactor.HIDDEN)
			.map((json) -> new TaskResultDescriptor(id, "", json));
	}

	@WriteOperation
	public WebEndpointResponse<Object> taskAction(@Selector String tasks, @Selector String id,
			@Selector String action) {
		try (ActingAs acting = acting()) {
			return act(tasks, id, action);
		}
	}

	private WebEndpointResponse<Object> act(String tasks, String id, String action) {
		if (tasks.equals(ScheduleEndpointActions.SEGMENT)) {
			return new ScheduleEndpointActions(this.operations).act(id, action);
		}
		if (!tasks.equals("tasks") || !action.equals("retry")) {
			return badRequest("Use POST /taskqueue/tasks/{id}/retry");
		}
		UUID taskId = taskId(id);
		if (taskId == null) {
			return notATaskId(id);
		}
		return this.operations.retryDead(taskId) ? ok(new TaskActionResult(taskId, "retried"))
				: notFound("No dead task " + taskId);
	}

	/**
	 * Deletes the dead ({@code {queue}/dead}) or waiting ({@code {queue}/waiting}) tasks of a queue, or one task
	 * ({@code tasks/{id}}). Of the dead ones, those that {@code error} (text the error contains, any case),
	 * {@code failedFrom} and {@code failedBefore} (ISO instants) match, in chunks; of the waiting ones, those they
	 * match (the last error, when the last failed attempt ended), in chunks (deleteWaiting). Without a condition,
	 * only with {@code all=true}: every dead task, or every waiting task (cancelAll, with those waiting for
	 * prerequisites). A misspelt parameter is not seen here, and must not widen a filtered delete to the whole
	 * queue.
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> delete(@Selector String first, @Selector String second,
			@Nullable String error, @Nullable String failedFrom, @Nullable String failedBefore,
			@Nullable Boolean all, SecurityContext security) {
		try (ActingAs acting = acting()) {
			return deleteTasks(first, second, error, failedFrom, failedBefore, Boolean.TRUE.equals(all), security);
		}
	}

	private WebEndpointResponse<Object> deleteTasks(String first, String second, @Nullable String error,
			@Nullable String failedFrom, @Nullable String failedBefore, boolean all, SecurityContext security) {
		if (second.equals("dead") || second.equals("waiting")) {
			return valid(() -> {
				TaskFilter filter = filter(first, error, failedFrom, failedBefore);
				boolean everything = filter.equals(TaskFilter.queue(first));
				if (everything != all) {
					return badRequest(all ? "all=true deletes every " + second + " task of the queue: give it "
							+ "without error, failedFrom or failedBefore"
							: "Give error, failedFrom or failedBefore to delete the " + second + " tasks they match, "
									+ "or all=true to delete every " + second + " task of the queue");
				}
				if (!isKnown(first)) {
					return unknownQueue(first);
				}
				boolean dead = second.equals("dead");
				int deleted = dead ? this.operations.deleteDead(filter) : deleteWaiting(filter);
				return ok(new QueueActionResult(first, dead ? "delete-dead" : "delete-waiting",
						this.operations.isPaused(first), deleted));
			});
		}
		if (!first.equals("tasks")) {
			return badRequest(
					"Use DELETE /taskqueue/{queue}/dead, /taskqueue/{queue}/waiting or /taskqueue/tasks/{id}");
		}
		UUID taskId = taskId(second);
		if (taskId == null) {
			return notATaskId(second);
		}
		Principal principal = security.getPrincipal();
		if (this.operations.cancel(taskId, (principal != null) ? principal.getName() : "actuator")) {
			return ok(new TaskActionResult(taskId, "cancelled"));
		}
		if (this.operations.deleteDead(taskId)) {
			return ok(new TaskActionResult(taskId, "deleted"));
		}
		return notFound("No waiting, running or dead task " + taskId);
	}

	/**
	 * Names the caller in the audit log entries of a write: the principal Spring Security authenticated for the
	 * request, or {@code anonymous}. Not Spring Boot's {@code SecurityContext} parameter: a write operation with any
	 * parameter but its selectors takes a JSON body, and pause, resume and retry-dead are posted without one.
	 */
	private static ActingAs acting() {
		return ActingAs.principal("actuator");
	}

	/**
	 * The tasks of {@code queue} that the optional conditions of a bulk action over HTTP match.
	 * @throws IllegalArgumentException naming the HTTP parameters, for a time that is not an ISO instant or a range
	 * that ends before it starts
	 */
	private static TaskFilter filter(String queue, @Nullable String error, @Nullable String failedFrom,
			@Nullable String failedBefore) {
		QueueName.requireValid(queue, "queue");
		Instant from = instant("failedFrom", failedFrom);
		Instant before = instant("failedBefore", failedBefore);
		if (from != null && before != null && !from.isBefore(before)) {
			throw new IllegalArgumentException(
					"failedFrom must be earlier than failedBefore, but was " + from + " and " + before);
		}
		return new TaskFilter(queue, (error != null && !error.isBlank()) ? error : null, from, before);
	}

	/** All the waiting tasks of the filter's queue as before (cancelAll), or those a condition more matches. */
	private int deleteWaiting(TaskFilter filter) {
		String queue = filter.queue();
		if (queue != null && filter.equals(TaskFilter.queue(queue))) {
			return this.operations.cancelAll(queue);
		}
		return this.operations.deleteWaiting(filter);
	}

	private static @Nullable Instant instant(String name, @Nullable String value) {
		try {
			return (value != null && !value.isBlank()) ? Instant.parse(value) : null;
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException(
					name + " must be an ISO instant such as 2026-11-27T09:30:00Z but was '" + value + "'");
		}
	}

	/** Whether {@code GET /actuator/taskqueue} lists {@code queue}; an invalid name is a 400, not a 404. */
	private boolean isKnown(String queue) {
		QueueName.requireValid(queue, "queue");
		return this.operations.queueStats().stream().anyMatch((stats) -> stats.queue().equals(queue));
	}

}
