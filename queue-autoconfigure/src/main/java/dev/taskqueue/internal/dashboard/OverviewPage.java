package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskQueueOperations.WorkerSessionInfo;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/**
 * The overview: every queue with its counts and charts, the live sessions, then the {@link OverviewSection}s.
 * A new count of {@link QueueStats} is one more entry in {@link #queueColumns}.
 */
final class OverviewPage {

	private final int countLimit;

	private final Duration refresh;

	private final List<OverviewSection> sections;

	OverviewPage(int countLimit, Duration refresh, List<OverviewSection> sections) {
		this.countLimit = countLimit;
		this.refresh = refresh;
		this.sections = List.copyOf(sections);
	}

	String render(PageContext context, List<QueueStats> queues, List<WorkerSessionInfo> sessions,
			Trends trends) {
		List<Html> body = new ArrayList<>();
		body.add(tag("h2", "Queues"));
		body.add(Column.table(queueColumns(context, trends), queues, "No queue has tasks or handlers yet."));
		body.add(element("p", attrs("class", "note"), "Counts stop at " + Formats.count(this.countLimit, Integer.MAX_VALUE)
				+ " (taskqueue.metrics.count-limit). Charts: attempts per minute over the last hour, from every instance. "
				+ "Falling behind: more tasks ready, and the oldest waiting longer (over " + Formats.age(Trends.BEHIND_WAIT)
				+ "), than " + Trends.BEHIND_MINUTES + " minutes before; a queue's page shows its trends."));
		body.add(tag("h2", "Live instances"));
		body.add(Column.table(sessionColumns(context), sessions, "No instance runs a worker."));
		for (OverviewSection section : this.sections) {
			body.add(tag("h2", section.title()));
			body.add(section.render(context));
		}
		return Layout.page(context, "Overview", this.refresh, join(body));
	}

	private List<Column<QueueStats>> queueColumns(PageContext context, Trends trends) {
		return List.of(
				Column.text("queue",
						(q) -> element("a", attrs("href", context.url("/queues/" + q.queue())), q.queue())),
				Column.text("state", (q) -> state(q, trends.queue(q.queue()))),
				Column.number("ready", (q) -> count(q.ready())),
				Column.number("scheduled", (q) -> count(q.scheduled())),
				Column.number("running", (q) -> count(q.running())),
				Column.number("held back", (q) -> HeldBack.cell(context, q, this.countLimit)),
				Column.number("dead", (q) -> (q.dead() > 0)
						? element("a", attrs("href", context.url("/dead?queue=" + q.queue())), count(q.dead()))
						: "0"),
				Column.number("oldest ready", (q) -> q.oldestReadyAge().isZero() ? "" : Formats.age(q.oldestReadyAge())),
				Column.text("completed, last hour", (q) -> chart(trends.queue(q.queue()).completed, "ok", "Completed")),
				Column.text("failed, last hour", (q) -> chart(trends.queue(q.queue()).failed, "bad", "Failed")),
				Column.text("", (q) -> q.paused()
						? Forms.button(context, "/queues/" + q.queue() + "/resume", "Resume", "")
						: Forms.button(context, "/queues/" + q.queue() + "/pause", "Pause", "")));
	}

	/** Paused first: a paused queue's tasks wait whoever handles it. Then whether it is falling behind. */
	private static Object state(QueueStats queue, Trends.Series trend) {
		Object state;
		if (queue.paused()) {
			state = element("span", attrs("class", "paused"), "paused");
		}
		else {
			state = queue.unhandled()
					? element("span", attrs("class", "unhandled"), "no live instance handles this queue") : "active";
		}
		return trend.fallingBehind() ? join(state, " ", element("span", attrs("class", "behind", "title",
				"More tasks ready, and the oldest waiting longer, than " + Trends.BEHIND_MINUTES + " minutes before"),
				"falling behind")) : state;
	}

	private static List<Column<WorkerSessionInfo>> sessionColumns(PageContext context) {
		return List.of(Column.text("instance", WorkerSessionInfo::name),
				Column.wide("session", (s) -> element("span", attrs("class", "id"), s.id().toString())),
				Column.text("started", (s) -> Formats.when(s.startedAt(), context.now())),
				Column.number("last heartbeat", (s) -> Formats.age(s.heartbeatAge()) + " ago"),
				Column.number("running tasks", (s) -> String.format("%,d", s.runningTasks())));
	}

	private static Html chart(long[] perMinute, String style, String label) {
		long total = 0;
		for (long count : perMinute) {
			total += count;
		}
		return element("span", attrs("class", "chart"), Sparkline.bars(perMinute, style, label),
				element("span", attrs("class", "total"), String.format("%,d", total)));
	}

	private String count(long count) {
		return Formats.count(count, this.countLimit);
	}

}
