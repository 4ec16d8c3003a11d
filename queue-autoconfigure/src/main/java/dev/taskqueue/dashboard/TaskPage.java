package dev.taskqueue.dashboard;

import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.DeadTask;
import dev.taskqueue.jdbc.TaskView;

import static dev.taskqueue.dashboard.Html.attrs;
import static dev.taskqueue.dashboard.Html.element;
import static dev.taskqueue.dashboard.Html.join;
import static dev.taskqueue.dashboard.Html.tag;

/** One task, waiting, running or dead: every field, the payload indented, the whole error. */
final class TaskPage {

	private TaskPage() {
	}

	static String waiting(PageContext context, TaskView task) {
		boolean running = task.running();
		List<Object> fields = new ArrayList<>(List.of("queue",
				element("a", attrs("href", context.url("/queues/" + task.queue())), task.queue()), "state",
				running ? "running" : task.held() ? "held behind an earlier task of its ordering key" : "waiting",
				"priority", task.priority(), "due", Formats.time(task.runAt()),
				"enqueued", Formats.time(task.enqueuedAt()), "attempt", task.attempt()));
		if (running) {
			fields.addAll(List.of("claimed by", String.valueOf(task.claimedBy()), "claimed", Formats.time(task.claimedAt())));
		}
		if (task.orderingKey() != null) {
			fields.addAll(List.of("ordering key", task.orderingKey()));
		}
		if (task.uniqueKey() != null) {
			fields.addAll(List.of("unique key", task.uniqueKey()));
		}
		List<Html> body = new ArrayList<>();
		body.add(fields(fields));
		if (!running) {
			body.add(tag("p", Forms.button(context, "/tasks/" + task.id() + "/cancel", "Cancel this task", "danger")));
		}
		body.add(tag("h2", "Payload"));
		body.add(element("pre", attrs("class", "payload"), Formats.prettyJson(task.payload())));
		if (task.lastError() != null) {
			body.add(tag("h2", "Last error"));
			body.add(element("pre", attrs("class", "error"), task.lastError()));
		}
		return Layout.page(context, "Task " + task.id(), null, join(body));
	}

	static String dead(PageContext context, DeadTask task) {
		List<Html> body = new ArrayList<>();
		body.add(fields(List.of("queue",
				element("a", attrs("href", context.url("/dead?queue=" + task.queue())), task.queue()), "state", "dead",
				"priority", task.priority(), "attempts", task.attempts(), "enqueued", Formats.time(task.enqueuedAt()),
				"failed", Formats.time(task.failedAt()))));
		body.add(tag("p", Forms.button(context, "/tasks/" + task.id() + "/retry", "Retry", ""), " ",
				Forms.button(context, "/tasks/" + task.id() + "/delete", "Delete", "danger")));
		body.add(tag("h2", "Error"));
		body.add(element("pre", attrs("class", "error"), task.error()));
		body.add(tag("h2", "Payload"));
		body.add(element("pre", attrs("class", "payload"), Formats.prettyJson(task.payload())));
		return Layout.page(context, "Dead task " + task.id(), null, join(body));
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
