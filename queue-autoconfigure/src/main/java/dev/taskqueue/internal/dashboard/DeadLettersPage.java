package dev.taskqueue.internal.dashboard;

import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.DeadTask;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.empty;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/** The dead letters, newest first, filtered by queue and error text, one page at a time. */
final class DeadLettersPage {

	private DeadLettersPage() {
	}

	/**
	 * @param queue the queue filter, or {@code null}
	 * @param text the error text filter, or {@code null}
	 * @param next the cursor of the page after this one, or {@code null} when this is the last
	 */
	static String render(PageContext context, @Nullable String queue, @Nullable String text, List<DeadTask> tasks,
			@Nullable String next) {
		List<Html> body = new ArrayList<>();
		body.add(element("form", attrs("method", "get", "action", context.url("/dead"), "class", "filters"),
				element("label", attrs(), "Queue ",
						empty("input", "type", "text", "name", "queue", "value", (queue != null) ? queue : "")),
				element("label", attrs(), " Error contains ",
						empty("input", "type", "text", "name", "error", "value", (text != null) ? text : "")),
				element("button", attrs("type", "submit"), "Filter")));
		if (queue != null && !tasks.isEmpty()) {
			body.add(tag("p", Forms.button(context, "/queues/" + queue + "/retry-dead", "Retry all of " + queue, ""),
					" ", Forms.button(context, "/queues/" + queue + "/delete-dead", "Delete all of " + queue, "danger")));
		}
		body.add(Column.table(columns(context), tasks, "No dead letters" + ((queue != null || text != null)
				? " match." : ".")));
		if (next != null) {
			StringBuilder link = new StringBuilder("/dead?after=").append(next);
			if (queue != null) {
				link.append("&queue=").append(queue);
			}
			if (text != null) {
				link.append("&error=").append(java.net.URLEncoder.encode(text, java.nio.charset.StandardCharsets.UTF_8));
			}
			body.add(tag("p", element("a", attrs("href", context.url(link.toString()), "rel", "next"), "Next page →")));
		}
		return Layout.page(context, (queue != null) ? "Dead letters of " + queue : "Dead letters", null, join(body));
	}

	private static List<Column<DeadTask>> columns(PageContext context) {
		return List.of(
				Column.text("task",
						(t) -> element("a", attrs("href", context.url("/tasks/" + t.id()), "class", "id"),
								t.id().toString())),
				Column.text("queue", (t) -> element("a", attrs("href", context.url("/dead?queue=" + t.queue())), t.queue())),
				Column.text("failed", (t) -> Formats.time(t.failedAt())),
				Column.number("attempts", DeadTask::attempts),
				Column.text("error", (t) -> element("span", attrs("class", "error"), Formats.shorten(t.errorLine(), 200))),
				Column.text("payload",
						(t) -> element("code", attrs("class", "payload"), Formats.shorten(t.payload(), 80))),
				Column.text("", (t) -> join(Forms.button(context, "/tasks/" + t.id() + "/retry", "Retry", ""), " ",
						Forms.button(context, "/tasks/" + t.id() + "/delete", "Delete", "danger"))));
	}

}
