package dev.taskqueue.internal.dashboard;

import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.DeadTask;
import dev.taskqueue.TaskQueueOperations.TaskFilter;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/**
 * The dead letters, newest first, filtered by queue, error text and failure time, one page at a time; with a
 * filter, buttons that retry or delete every dead letter it matches (DashboardActions, after a confirmation).
 */
final class DeadLettersPage {

	private DeadLettersPage() {
	}

	/**
	 * @param next the cursor of the page after this one, or {@code null} when this is the last
	 */
	static String render(PageContext context, TaskFilter filter, List<DeadTask> tasks, @Nullable String next) {
		List<Html> body = new ArrayList<>();
		body.add(FilterForm.form(context, "/dead", filter, true, "Error contains"));
		boolean filtered = !filter.isEmpty();
		if (filtered && !tasks.isEmpty()) {
			String[] fields = fields(filter);
			body.add(element("div", attrs("class", "bulk"),
					Forms.button(context, "/dead/retry", "Retry all that match", "", fields), " ",
					Forms.button(context, "/dead/delete", "Delete all that match", "danger", fields)));
		}
		body.add(Column.table(columns(context), tasks, "No dead letters" + (filtered ? " match." : ".")));
		if (next != null) {
			String link = FilterForm.path("/dead?after=" + next, fields(filter));
			body.add(tag("p", element("a", attrs("href", context.url(link), "rel", "next"), "Next page →")));
		}
		return Layout.page(context, (filter.queue() != null) ? "Dead letters of " + filter.queue() : "Dead letters",
				null, join(body));
	}

	/** The filter as the name and value pairs of the form fields that carry it: the given conditions only. */
	static String[] fields(TaskFilter filter) {
		return FilterForm.fields(filter, true);
	}

	private static List<Column<DeadTask>> columns(PageContext context) {
		return List.of(
				Column.wide("task",
						(t) -> element("a", attrs("href", context.url("/tasks/" + t.id()), "class", "id"),
								t.id().toString())),
				Column.text("queue", (t) -> element("a", attrs("href", context.url("/dead?queue=" + t.queue())), t.queue())),
				Column.text("failed", (t) -> Formats.when(t.failedAt(), context.now())),
				Column.number("attempts", DeadTask::attempts),
				Column.wide("error", (t) -> element("span", attrs("class", "error"), Formats.shorten(t.errorLine(), 200))),
				Column.wide("payload",
						(t) -> element("code", attrs("class", "payload"), Formats.shorten(t.payload(), 80))),
				Column.text("", (t) -> join(Forms.button(context, "/tasks/" + t.id() + "/retry", "Retry", ""), " ",
						Forms.button(context, "/tasks/" + t.id() + "/delete", "Delete", "danger"))));
	}

}
