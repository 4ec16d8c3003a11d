package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.DeadTask;
import dev.taskqueue.TaskProgress;
import dev.taskqueue.internal.jdbc.AttemptLog;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/** One task, waiting, running or dead: every field, the payload indented, the whole error. */
final class TaskPage {

	private TaskPage() {
	}

	/** @param progress the running task's progress, {@code null} when it waits or reported none */
	static String waiting(PageContext context, TaskView task, @Nullable TaskProgress progress) {
		boolean running = task.running();
		List<Object> fields = new ArrayList<>(List.of("queue",
				element("a", attrs("href", context.url("/queues/" + task.queue())), task.queue()), "state",
				running ? "running" : task.held() ? "held behind an earlier task of its ordering key" : "waiting",
				"priority", task.priority(), "due", Formats.when(task.runAt(), context.now()),
				"enqueued", Formats.when(task.enqueuedAt(), context.now()), "attempt", task.attempt()));
		if (running) {
			fields.addAll(List.of("claimed by", String.valueOf(task.claimedBy()), "claimed",
					Formats.when(task.claimedAt(), context.now())));
		}
		if (running && progress != null) {
			// A plain element with its figure as text: the page has no script, and a reader without CSS reads the figure.
			String percent = progress.percent() + "%";
			fields.addAll(List.of("progress", join(element("progress",
					attrs("value", String.valueOf(progress.percent()), "max", "100"), percent), " ", percent,
					(progress.message() != null) ? " " + progress.message() : "", " (",
					Formats.when(progress.updatedAt(), context.now()), ")")));
		}
		if (task.orderingKey() != null) {
			fields.addAll(List.of("ordering key", task.orderingKey()));
		}
		if (task.uniqueKey() != null) {
			fields.addAll(List.of("unique key", task.uniqueKey()));
		}
		if (task.fairnessKey() != null) {
			fields.addAll(List.of("fairness key", task.fairnessKey()));
		}
		List<Html> body = new ArrayList<>();
		body.add(fields(fields));
		// A running task too: its handler is interrupted and its work rolled back, on whichever instance runs it.
		body.add(element("div", attrs("class", "actions"),
				Forms.button(context, "/tasks/" + task.id() + "/cancel", "Cancel this task", "danger")));
		attempts(body, context, task.attempts(), task.attempt());
		payload(body, task.payload(), task.payloadBytes());
		if (task.lastError() != null) {
			body.add(tag("h2", "Last error"));
			body.add(preview(task.errorBytes()));
			body.add(element("pre", attrs("class", "error"), task.lastError()));
		}
		return Layout.page(context, "Task " + task.id(), null, join(body));
	}

	static String dead(PageContext context, DeadTaskView view) {
		DeadTask task = view.task();
		List<Html> body = new ArrayList<>();
		List<Object> fields = new ArrayList<>(List.of("queue",
				element("a", attrs("href", context.url("/dead?queue=" + task.queue())), task.queue()), "state", "dead",
				"priority", task.priority(), "attempts", task.attempts(), "enqueued", Formats.when(task.enqueuedAt(), context.now()),
				"failed", Formats.when(task.failedAt(), context.now())));
		// Its tenant: a retry gives the task back with it (DeadTaskRepository).
		if (task.fairnessKey() != null) {
			fields.addAll(List.of("fairness key", task.fairnessKey()));
		}
		body.add(fields(fields));
		body.add(element("div", attrs("class", "actions"),
				Forms.button(context, "/tasks/" + task.id() + "/retry", "Retry", ""), " ",
				Forms.button(context, "/tasks/" + task.id() + "/delete", "Delete", "danger")));
		// The story first: the whole trace of the last attempt that follows is long.
		attempts(body, context, task.attemptLog(), task.attempts());
		body.add(tag("h2", "Error"));
		body.add(preview(view.errorBytes()));
		body.add(element("pre", attrs("class", "error"), task.error()));
		payload(body, task.payload(), view.payloadBytes());
		return Layout.page(context, "Dead task " + task.id(), null, join(body));
	}

	/**
	 * A completed task of which only its result is kept (for taskqueue.retention.history): the result, indented when it
	 * is whole JSON, as the redactor shows payloads.
	 */
	static String completed(PageContext context, UUID id, String queue, String result, long bytes) {
		List<Html> body = new ArrayList<>();
		body.add(fields(List.of("queue", element("a", attrs("href", context.url("/queues/" + queue)), queue), "state",
				"completed")));
		body.add(tag("h2", "Result"));
		Html note = preview(bytes);
		body.add(note);
		body.add(element("pre", attrs("class", "payload"), (note == Html.EMPTY) ? Formats.prettyJson(result) : result));
		return Layout.page(context, "Completed task " + id, null, join(body));
	}

	/**
	 * The task's story: its attempts as its log keeps them, the latest {@link AttemptLog#SIZE}, with
	 * a note when {@code attempts} (how many it had) is more. Nothing for a task that never failed: it has no log.
	 */
	private static void attempts(List<Html> body, PageContext context, List<DeadTask.Attempt> log, int attempts) {
		if (log.isEmpty()) {
			return;
		}
		body.add(tag("h2", "Attempts"));
		int first = log.get(0).attempt();
		if (first > 1) {
			body.add(element("p", attrs("class", "note"), "The last " + log.size() + " attempts; the "
					+ (first - 1) + " before are not kept (a task keeps its last " + AttemptLog.SIZE + ")."));
		}
		body.add(Column.table(List.of(Column.number("#", DeadTask.Attempt::attempt),
				Column.text("started",
						(a) -> (a.startedAt() != null) ? Formats.when(a.startedAt(), context.now()) : ""),
				Column.text("took", (a) -> (a.startedAt() != null)
						? Formats.age(Duration.between(a.startedAt(), a.endedAt())) : ""),
				Column.text("instance", (a) -> (a.instance() != null) ? a.instance() : "(gone)"),
				Column.text("outcome", (a) -> element("span",
						attrs("class", "outcome " + a.outcome().replace(' ', '-')), a.outcome())),
				Column.wide("error", (a) -> element("span", attrs("class", "error", "title", a.error()),
						Formats.shorten(Formats.firstLine(a.error()), 200)))), log, ""));
	}

	/**
	 * The payload, indented when it is whole JSON. The page reads only its first DashboardQueries.PAGE_PREVIEW
	 * characters (a payload of 100 MB would not fit in the heap): when that is not all of it, the page says so and
	 * shows the start as stored.
	 */
	private static void payload(List<Html> body, String payload, long bytes) {
		body.add(tag("h2", "Payload"));
		Html note = preview(bytes);
		body.add(note);
		body.add(element("pre", attrs("class", "payload"), (note == Html.EMPTY) ? Formats.prettyJson(payload) : payload));
	}

	/** "Showing the first 64 KB of 10.0 MB" when the page holds only the start of {@code bytes} (0: all of it). */
	private static Html preview(long bytes) {
		if (bytes == 0) {
			return Html.EMPTY;
		}
		return element("p", attrs("class", "problem"), "Showing the first " + DashboardQueries.PAGE_PREVIEW / 1024
				+ " KB of " + Formats.size(bytes) + ": the dashboard reads no more of it.");
	}

	/** A definition list of name and value pairs. */
	private static Html fields(List<Object> pairs) {
		List<Html> items = new ArrayList<>();
		for (int i = 0; i + 1 < pairs.size(); i += 2) {
			items.add(join(tag("dt", pairs.get(i)), tag("dd", pairs.get(i + 1))));
		}
		return element("dl", attrs("class", "fields"), join(items));
	}

}
