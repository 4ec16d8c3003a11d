package dev.taskqueue.internal.dashboard;

import java.util.List;
import java.util.UUID;

import dev.taskqueue.ScheduleInfo;
import dev.taskqueue.TaskQueueOperations;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;

/**
 * The recurring schedules on the overview, as {@link TaskQueueOperations#schedules()} lists them (one row each:
 * there are as many as the code declares), with pause, resume and trigger.
 */
final class SchedulesSection implements OverviewSection {

	private final TaskQueueOperations operations;

	private final DashboardQueries queries;

	SchedulesSection(TaskQueueOperations operations, DashboardQueries queries) {
		this.operations = operations;
		this.queries = queries;
	}

	@Override
	public String title() {
		return "Recurring schedules";
	}

	@Override
	public Html render(PageContext context) {
		return Column.table(columns(context), this.operations.schedules(), "No recurring schedule.");
	}

	private List<Column<ScheduleInfo>> columns(PageContext context) {
		return List.of(Column.text("schedule", ScheduleInfo::name),
				Column.text("queue",
						(s) -> element("a", attrs("href", context.url("/queues/" + s.queue())), s.queue())),
				Column.text("runs on", (s) -> element("code", attrs(), s.spec())),
				Column.text("state", SchedulesSection::state),
				Column.text("next run", (s) -> s.paused() ? "" : Formats.when(s.nextRunAt(), context.now())),
				Column.text("last run", (s) -> lastRun(context, s)),
				Column.number("ticks", (s) -> String.format("%,d", s.ticks())),
				Column.number("skipped", (s) -> String.format("%,d", s.skipped())),
				Column.number("missed", (s) -> String.format("%,d", s.missed())),
				Column.text("", (s) -> join(
						s.paused() ? Forms.button(context, "/schedules/resume", "Resume", "", "name", s.name())
								: Forms.button(context, "/schedules/pause", "Pause", "", "name", s.name()),
						" ", Forms.button(context, "/schedules/trigger", "Trigger now", "", "name", s.name()))));
	}

	private static Object state(ScheduleInfo schedule) {
		String declared = schedule.declared() ? "" : ", not declared";
		return schedule.paused() ? join(element("span", attrs("class", "paused"), "paused"), declared)
				: "active" + declared;
	}

	/**
	 * When the last tick was due, and what became of the last task of a tick or trigger, by its id (two
	 * primary-key reads): waiting, running, dead, or done once it is gone (completed or cancelled).
	 */
	private Object lastRun(PageContext context, ScheduleInfo schedule) {
		UUID task = schedule.lastTaskId();
		Html when = (schedule.lastTickAt() != null) ? join(Formats.when(schedule.lastTickAt(), context.now()), " · ")
				: Html.EMPTY;
		if (task == null) {
			return (when == Html.EMPTY) ? "never" : when;
		}
		String outcome = this.queries.find(task)
			.map((t) -> t.running() ? "running" : "waiting")
			.orElseGet(() -> this.queries.deadQueue(task).isPresent() ? "dead" : "done");
		Object shown = "done".equals(outcome) ? outcome : element("a",
				attrs("href", context.url("/tasks/" + task), "class", "dead".equals(outcome) ? "error" : null), outcome);
		return join(when, shown);
	}

}
