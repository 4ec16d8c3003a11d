package dev.taskqueue.internal.dashboard;

import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.internal.jdbc.TaskView;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/**
 * One queue: its counts, and one page of its ready, scheduled or running tasks in the order the worker takes
 * them. The task columns are listed once, in {@link #columns}.
 */
final class QueuePage {

	/** The lists a queue page shows, one at a time. */
	enum View {

		READY("ready", "Ready, in the order they will run"), SCHEDULED("scheduled",
				"Scheduled: delayed, or waiting to retry, in claim order"), RUNNING("running",
						"Running, longest first"), HELD("held",
								"Held behind an earlier task of their ordering key, by key, in the order they will run");

		final String name;

		final String heading;

		View(String name, String heading) {
			this.name = name;
			this.heading = heading;
		}

		static View of(@Nullable String name) {
			for (View view : values()) {
				if (view.name.equals(name)) {
					return view;
				}
			}
			if (name == null || name.isEmpty()) {
				return READY;
			}
			throw new IllegalArgumentException(
					"view must be ready, scheduled, running or held but was '" + name + "'");
		}

	}

	private final int countLimit;

	QueuePage(int countLimit) {
		this.countLimit = countLimit;
	}

	/**
	 * @param next the cursor of the page after this one, or {@code null} when this is the last
	 */
	String render(PageContext context, String queue, QueueStats stats, View view, List<TaskView> tasks,
			@Nullable String next) {
		List<Html> body = new ArrayList<>();
		body.add(tag("p", "State: ", stats.paused() ? element("span", attrs("class", "paused"), "paused") : "active",
				" · dead: ", element("a", attrs("href", context.url("/dead?queue=" + queue)), count(stats.dead())),
				" ", stats.paused() ? Forms.button(context, "/queues/" + queue + "/resume", "Resume", "", "from", "queue")
						: Forms.button(context, "/queues/" + queue + "/pause", "Pause", "", "from", "queue")));
		body.add(HeldBack.limits(stats.limits()));
		List<Html> tabs = new ArrayList<>();
		for (View each : View.values()) {
			long count = switch (each) {
				case READY -> stats.ready();
				case SCHEDULED -> stats.scheduled();
				case RUNNING -> stats.running();
				case HELD -> stats.waitingForKey();
			};
			tabs.add(element("a",
					attrs("href", context.url("/queues/" + queue + "?view=" + each.name), "class",
							(each == view) ? "tab current" : "tab"),
					each.name + " (" + count(count) + ")"));
		}
		body.add(element("p", attrs("class", "tabs"), join(tabs)));
		body.add(tag("h2", view.heading));
		body.add(Column.table(columns(context, view), tasks, "No " + view.name + " task."));
		if (next != null) {
			body.add(tag("p", element("a",
					attrs("href", context.url("/queues/" + queue + "?view=" + view.name + "&after=" + next), "rel",
							"next"),
					"Next page →")));
		}
		return Layout.page(context, "Queue " + queue, null, join(body));
	}

	private static List<Column<TaskView>> columns(PageContext context, View view) {
		List<Column<TaskView>> columns = new ArrayList<>();
		columns.add(Column.text("task",
				(t) -> element("a", attrs("href", context.url("/tasks/" + t.id()), "class", "id"), t.id().toString())));
		columns.add(Column.number("priority", TaskView::priority));
		columns.add(Column.text((view == View.RUNNING) ? "claimed" : "due",
				(t) -> Formats.time((view == View.RUNNING) ? t.claimedAt() : t.runAt())));
		columns.add(Column.number("attempt", TaskView::attempt));
		columns.add(Column.text("unique key", (t) -> (t.uniqueKey() != null) ? t.uniqueKey() : ""));
		columns.add(Column.text("ordering key", (t) -> (t.orderingKey() != null) ? t.orderingKey() : ""));
		columns.add(Column.text("payload",
				(t) -> element("code", attrs("class", "payload"), Formats.shorten(t.payload(), 120))));
		columns.add(Column.text("last error",
				(t) -> element("span", attrs("class", "error"), Formats.shorten(Formats.firstLine(t.lastError()), 160))));
		if (view != View.RUNNING) {
			columns.add(Column.text("", (t) -> Forms.button(context, "/tasks/" + t.id() + "/cancel", "Cancel", "danger")));
		}
		return columns;
	}

	private String count(long count) {
		return Formats.count(count, this.countLimit);
	}

}
