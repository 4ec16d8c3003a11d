package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskQueueOperations.TaskFilter;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/**
 * One queue: its counts, its trends over the last hour and day, and one page of its ready, scheduled or running
 * tasks in the order the worker takes them. The task columns are listed once, in {@link #columns}.
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

	private final Duration refresh;

	/**
	 * @param refresh how often the page reloads itself: it shows a queue draining
	 */
	QueuePage(int countLimit, Duration refresh) {
		this.countLimit = countLimit;
		this.refresh = refresh;
	}

	/**
	 * @param next the cursor of the page after this one, or {@code null} when this is the last
	 */
	String render(PageContext context, String queue, QueueStats stats, List<Trends.Series> trends, View view,
			Bulk bulk, List<TaskView> tasks, @Nullable String next) {
		List<Html> body = new ArrayList<>();
		body.add(element("div", attrs("class", "actions"), "State: ",
				stats.paused() ? element("span", attrs("class", "paused"), "paused") : "active",
				" · dead: ", element("a", attrs("href", context.url("/dead?queue=" + queue)), count(stats.dead())),
				" ", stats.paused() ? Forms.button(context, "/queues/" + queue + "/resume", "Resume", "", "from", "queue")
						: Forms.button(context, "/queues/" + queue + "/pause", "Pause", "", "from", "queue")));
		body.add(HeldBack.limits(stats.limits()));
		body.add(trends(trends));
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
		body.add(bulk(context, queue, bulk));
		if (bulk.filtered()) {
			body.add(tag("h2", "Waiting tasks that match, by id"));
			body.add(Column.table(columns(context, View.READY), tasks, "No waiting task matches."));
			if (next != null) {
				String link = FilterForm.path("/queues/" + queue + "?after=" + next,
						FilterForm.fields(bulk.filter(), false));
				body.add(tag("p", element("a", attrs("href", context.url(link), "rel", "next"), "Next page →")));
			}
			return Layout.page(context, "Queue " + queue, null, join(body));
		}
		body.add(tag("h2", view.heading));
		body.add(Column.table(columns(context, view), tasks, "No " + view.name + " task."));
		if (next != null) {
			body.add(tag("p", element("a",
					attrs("href", context.url("/queues/" + queue + "?view=" + view.name + "&after=" + next), "rel",
							"next"),
					"Next page →")));
		}
		return Layout.page(context, "Queue " + queue, this.refresh, join(body));
	}

	/**
	 * The filter of the waiting tasks, and the buttons that make every task it matches due now or delete it, with
	 * their count (DashboardActions asks to confirm first).
	 */
	private Html bulk(PageContext context, String queue, Bulk bulk) {
		String[] fields = FilterForm.fields(bulk.filter(), false);
		Html buttons = (bulk.waiting() > 0) ? join(
				Forms.button(context, "/queues/" + queue + "/retry-waiting", "Retry " + count(bulk.waiting()), "",
						fields),
				" ", Forms.button(context, "/queues/" + queue + "/delete-waiting", "Delete " + count(bulk.waiting()),
						"danger", fields))
				: Html.EMPTY;
		boolean one = bulk.running() == 1;
		String running = (bulk.running() == 0) ? ""
				: " " + count(bulk.running()) + (one ? " running task matches" : " running tasks match")
						+ ": a bulk action leaves " + (one ? "it" : "them") + " alone.";
		// A reload would lose what is being typed in the filter, so a page that reloads has a link in its place, to
		// this page with reloading off, which has the form; the filtered list does not reload either.
		Html filter = (bulk.filtered() || Layout.refreshOff(context))
				? FilterForm.form(context, "/queues/" + queue, bulk.filter(), false, "Last error contains")
				: element("p", attrs("class", "filters"), element("a",
						attrs("href", context.selfWith(Layout.REFRESH, "off") + "#filter"),
						"Filter the waiting tasks"), " (by their last error or when it happened; stops reloading)");
		// A div, not a p: a form inside a p closes it.
		return join(filter,
				element("div", attrs("class", "bulk"), count(bulk.waiting()) + " waiting tasks"
						+ (bulk.filtered() ? " match. " : ". "), buttons, running));
	}

	/**
	 * The waiting tasks' filter and what it matches.
	 *
	 * @param filter the queue, and the conditions given on the page
	 * @param waiting how many waiting tasks it matches, up to the count limit
	 * @param running how many running tasks it matches (a bulk action leaves them alone)
	 */
	record Bulk(TaskFilter filter, long waiting, long running) {

		/** Whether a condition beyond the queue is given. */
		boolean filtered() {
			return this.filter.errorContains() != null || this.filter.from() != null || this.filter.before() != null;
		}

	}

	private static List<Column<TaskView>> columns(PageContext context, View view) {
		List<Column<TaskView>> columns = new ArrayList<>();
		columns.add(Column.wide("task",
				(t) -> element("a", attrs("href", context.url("/tasks/" + t.id()), "class", "id"), t.id().toString())));
		columns.add(Column.number("priority", TaskView::priority));
		columns.add(Column.text((view == View.RUNNING) ? "claimed" : "due",
				(t) -> Formats.when((view == View.RUNNING) ? t.claimedAt() : t.runAt(), context.now())));
		columns.add(Column.number("attempt", TaskView::attempt));
		columns.add(Column.wide("unique key", (t) -> (t.uniqueKey() != null) ? t.uniqueKey() : ""));
		columns.add(Column.wide("ordering key", (t) -> (t.orderingKey() != null) ? t.orderingKey() : ""));
		columns.add(Column.wide("payload",
				(t) -> element("code", attrs("class", "payload"), Formats.shorten(t.payload(), 120))));
		columns.add(Column.wide("last error",
				(t) -> element("span", attrs("class", "error"), Formats.shorten(Formats.firstLine(t.lastError()), 160))));
		columns.add(Column.text("", (t) -> Forms.button(context, "/tasks/" + t.id() + "/cancel", "Cancel", "danger")));
		return columns;
	}

	/**
	 * Each span's charts in a row: attempts completed and failed (summed per bar), the ready tasks and the oldest
	 * one's wait (the highest sample per bar), with each chart's latest figure or total beside its name.
	 */
	private static Html trends(List<Trends.Series> spans) {
		List<Html> rows = new ArrayList<>();
		for (Trends.Series series : spans) {
			Trends.Span span = series.span;
			rows.add(element("div", attrs("class", "trend-row"), tag("h3", span.title()),
					figure(Sparkline.trend(series.completed, span, "ok", "Completed", QueuePage::number), "completed",
							total(series.completed)),
					figure(Sparkline.trend(series.failed, span, "bad", "Failed", QueuePage::number), "failed",
							total(series.failed)),
					figure(Sparkline.trend(series.ready, span, "depth", "Ready", QueuePage::number), "ready",
							latest(series.ready, QueuePage::number)),
					figure(Sparkline.trend(series.oldestSeconds, span, "age", "Oldest ready",
							(seconds) -> Formats.age(Duration.ofSeconds(seconds))), "oldest ready",
							latest(series.oldestSeconds, (seconds) -> Formats.age(Duration.ofSeconds(seconds))))));
		}
		boolean behind = spans.get(0).fallingBehind();
		return element("details", attrs("class", "trends", "open", ""),
				element("summary", attrs(), "Trends ", behind ? element("span", attrs("class", "behind"), "falling behind")
						: ""),
				join(rows),
				element("p", attrs("class", "note"), "Attempts from every instance; ready tasks and the oldest one's "
						+ "wait as sampled once a minute (the highest sample per bar; a gap where none was taken)."));
	}

	private static Html figure(Html chart, String name, String figure) {
		return element("figure", attrs("class", "trend"), chart,
				element("figcaption", attrs(), name, " ", element("span", attrs("class", "total"), figure)));
	}

	private static String total(long[] values) {
		long total = 0;
		for (long value : values) {
			total += value;
		}
		return number(total);
	}

	/** The newest sampled figure, "not sampled" when there is none. */
	private static String latest(long[] values, LongFunction<String> format) {
		for (int i = values.length - 1; i >= 0; i--) {
			if (values[i] >= 0) {
				return "now " + format.apply(values[i]);
			}
		}
		return "not sampled";
	}

	private static String number(long value) {
		return String.format("%,d", value);
	}

	private String count(long count) {
		return Formats.count(count, this.countLimit);
	}

}
