package dev.taskqueue.internal.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.DeadTask;
import dev.taskqueue.TaskQueueOperations.DeadTaskFilter;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.empty;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/**
 * The dead letters, newest first, filtered by queue, error text and failure time, one page at a time; with a
 * filter, buttons that retry or delete every dead letter it matches (DashboardActions, after a confirmation).
 */
final class DeadLettersPage {

	/** A time as a {@code datetime-local} field holds it, in UTC. */
	private static final DateTimeFormatter FIELD = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
		.withZone(ZoneOffset.UTC);

	private DeadLettersPage() {
	}

	/**
	 * @param next the cursor of the page after this one, or {@code null} when this is the last
	 */
	static String render(PageContext context, DeadTaskFilter filter, List<DeadTask> tasks, @Nullable String next) {
		List<Html> body = new ArrayList<>();
		body.add(element("form", attrs("method", "get", "action", context.url("/dead"), "class", "filters"),
				element("label", attrs(), "Queue ", field("text", "queue", filter.queue())),
				element("label", attrs(), " Error contains ", field("text", "error", filter.errorContains())),
				element("label", attrs(), " Failed from ", field("datetime-local", "from", time(filter.failedFrom()))),
				element("label", attrs(), " before ", field("datetime-local", "before", time(filter.failedBefore())),
						" UTC "),
				element("button", attrs("type", "submit"), "Filter")));
		boolean filtered = filter.queue() != null || filter.errorContains() != null || filter.failedFrom() != null
				|| filter.failedBefore() != null;
		if (filtered && !tasks.isEmpty()) {
			String[] fields = fields(filter);
			body.add(element("p", attrs("class", "bulk"),
					Forms.button(context, "/dead/retry", "Retry all that match", "", fields), " ",
					Forms.button(context, "/dead/delete", "Delete all that match", "danger", fields)));
		}
		body.add(Column.table(columns(context), tasks, "No dead letters" + (filtered ? " match." : ".")));
		if (next != null) {
			StringBuilder link = new StringBuilder("/dead?after=").append(next);
			String[] fields = fields(filter);
			for (int i = 0; i + 1 < fields.length; i += 2) {
				link.append('&').append(fields[i]).append('=').append(URLEncoder.encode(fields[i + 1], StandardCharsets.UTF_8));
			}
			body.add(tag("p", element("a", attrs("href", context.url(link.toString()), "rel", "next"), "Next page →")));
		}
		return Layout.page(context, (filter.queue() != null) ? "Dead letters of " + filter.queue() : "Dead letters",
				null, join(body));
	}

	/** The filter as the name and value pairs of the form fields that carry it: the given conditions only. */
	static String[] fields(DeadTaskFilter filter) {
		List<String> fields = new ArrayList<>();
		if (filter.queue() != null) {
			fields.addAll(List.of("queue", filter.queue()));
		}
		if (filter.errorContains() != null) {
			fields.addAll(List.of("error", filter.errorContains()));
		}
		if (filter.failedFrom() != null) {
			fields.addAll(List.of("from", filter.failedFrom().toString()));
		}
		if (filter.failedBefore() != null) {
			fields.addAll(List.of("before", filter.failedBefore().toString()));
		}
		return fields.toArray(String[]::new);
	}

	private static Html field(String type, String name, @Nullable String value) {
		return (type.equals("datetime-local"))
				? empty("input", "type", type, "name", name, "step", "1", "value", (value != null) ? value : "")
				: empty("input", "type", type, "name", name, "value", (value != null) ? value : "");
	}

	private static @Nullable String time(@Nullable Instant instant) {
		return (instant != null) ? FIELD.format(instant) : null;
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
