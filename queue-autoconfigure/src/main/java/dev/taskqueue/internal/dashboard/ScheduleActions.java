package dev.taskqueue.internal.dashboard;

import dev.taskqueue.QueueName;
import dev.taskqueue.TaskQueueOperations;

import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Pause, resume and trigger a recurring schedule. The schedule's name comes as the form field {@code name}, not in
 * the path, so that any name works. Pause and resume are undone by each other and need no confirmation; a trigger
 * enqueues a task, so it asks first.
 */
final class ScheduleActions {

	private final TaskQueueOperations operations;

	private final DashboardActions actions;

	ScheduleActions(TaskQueueOperations operations, DashboardActions actions) {
		this.operations = operations;
		this.actions = actions;
	}

	ServerResponse pause(ServerRequest request) {
		String name = name(request);
		return this.actions.done(request, "", this.operations.pauseSchedule(name)
				? "Paused schedule " + name + ": no instance ticks it until it is resumed; a task already enqueued runs."
				: "No schedule " + name + " to pause.");
	}

	ServerResponse resume(ServerRequest request) {
		String name = name(request);
		return this.actions.done(request, "", this.operations.resumeSchedule(name)
				? "Resumed schedule " + name + ": a tick missed while it was paused runs at once, once."
				: "No schedule " + name + " to resume.");
	}

	ServerResponse trigger(ServerRequest request) {
		String name = name(request);
		if (!DashboardActions.confirmed(request, "/schedules/trigger", "name", name)) {
			return this.actions.confirm(request, "Trigger schedule " + name
					+ " now? One task of it is enqueued at once; its next tick stays as it is.", "/schedules/trigger",
					"Trigger now", "", "name", name);
		}
		return this.actions.done(request, "", this.operations.triggerSchedule(name)
			.map((id) -> "Triggered schedule " + name + ": task " + id + " (or the one of it that still waits or runs).")
			.orElse("No schedule " + name + " to trigger."));
	}

	private static String name(ServerRequest request) {
		String name = DashboardPages.param(request, "name");
		if (name == null) {
			throw new IllegalArgumentException("name (the schedule's name) is required");
		}
		// Schedule names follow the rules of queue names.
		return QueueName.requireValid(name, "name");
	}

}
