package dev.taskqueue.actuate;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.taskqueue.ScheduleInfo;
import dev.taskqueue.TaskQueueOperations;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static dev.taskqueue.actuate.EndpointResponses.badRequest;
import static dev.taskqueue.actuate.EndpointResponses.notFound;
import static dev.taskqueue.actuate.EndpointResponses.ok;

/**
 * The recurring schedules' part of the {@code taskqueue} endpoint, under a path segment of its own
 * ({@code schedules}), like the tasks' ({@code tasks}):
 * <pre>
 * GET  /actuator/taskqueue/schedules/*                 every schedule, declared or not
 * GET  /actuator/taskqueue/schedules/{name}            one schedule
 * POST /actuator/taskqueue/schedules/{name}/pause      pause it in every instance (also: resume, trigger)
 * </pre>
 */
final class ScheduleEndpointActions {

	static final String SEGMENT = "schedules";

	private final TaskQueueOperations operations;

	ScheduleEndpointActions(TaskQueueOperations operations) {
		this.operations = operations;
	}

	WebEndpointResponse<Object> read(String name) {
		List<ScheduleInfo> schedules = this.operations.schedules();
		if (name.equals("*")) {
			return ok(schedules);
		}
		return schedules.stream()
			.filter((schedule) -> schedule.name().equals(name))
			.findFirst()
			.map((schedule) -> ok(schedule))
			.orElseGet(() -> unknown(name));
	}

	WebEndpointResponse<Object> act(String name, String action) {
		return switch (action) {
			case "pause" -> this.operations.pauseSchedule(name) ? read(name) : unknown(name);
			case "resume" -> this.operations.resumeSchedule(name) ? read(name) : unknown(name);
			case "trigger" -> {
				Optional<UUID> task = this.operations.triggerSchedule(name);
				yield task.isPresent() ? ok(new Triggered(name, task.get())) : unknown(name);
			}
			default -> badRequest("Unknown action '" + action + "': use pause, resume or trigger");
		};
	}

	private static WebEndpointResponse<Object> unknown(String name) {
		return notFound("No schedule '" + name + "'");
	}

	/**
	 * What a trigger made.
	 *
	 * @param schedule the schedule
	 * @param taskId the task enqueued, or the one of the schedule that still waits or runs
	 */
	record Triggered(String schedule, UUID taskId) {
	}

}
