package dev.taskqueue.internal.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.TaskQueueOperations.TaskFilter;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.empty;

/**
 * The filter of a bulk action as a page shows and carries it: the form of the dead letters' page and of a queue's
 * waiting tasks, the fields a bulk action's buttons post, and the links that keep it. Its parameters are those
 * {@link DashboardPages#filter} reads.
 */
final class FilterForm {

	/** A time as a {@code datetime-local} field holds it, in UTC. */
	private static final DateTimeFormatter FIELD = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
		.withZone(ZoneOffset.UTC);

	private FilterForm() {
	}

	/**
	 * The form that filters the page at {@code path}.
	 * @param withQueue whether it has a queue field (a queue's page has its queue in its path)
	 * @param error what the error field is called
	 */
	static Html form(PageContext context, String path, TaskFilter filter, boolean withQueue, String error) {
		return element("form", attrs("method", "get", "action", context.url(path), "class", "filters", "id", "filter"),
				withQueue ? element("label", attrs(), "Queue ", field("text", "queue", filter.queue())) : Html.EMPTY,
				element("label", attrs(), " " + error + " ", field("text", "error", filter.errorContains())),
				element("label", attrs(), " Failed from ", field("datetime-local", "from", time(filter.from()))),
				element("label", attrs(), " before ", field("datetime-local", "before", time(filter.before())),
						" UTC "),
				element("button", attrs("type", "submit"), "Filter"));
	}

	/**
	 * The filter as the name and value pairs of the form fields that carry it: the given conditions only.
	 * @param withQueue whether the queue is one of them
	 */
	static String[] fields(TaskFilter filter, boolean withQueue) {
		List<String> fields = new ArrayList<>();
		if (withQueue && filter.queue() != null) {
			fields.addAll(List.of("queue", filter.queue()));
		}
		if (filter.errorContains() != null) {
			fields.addAll(List.of("error", filter.errorContains()));
		}
		if (filter.from() != null) {
			fields.addAll(List.of("from", filter.from().toString()));
		}
		if (filter.before() != null) {
			fields.addAll(List.of("before", filter.before().toString()));
		}
		return fields.toArray(String[]::new);
	}

	/** {@code path} (which may have a query already) with {@code fields} as its parameters. */
	static String path(String path, String... fields) {
		StringBuilder out = new StringBuilder(path);
		boolean query = path.contains("?");
		for (int i = 0; i + 1 < fields.length; i += 2) {
			out.append(query ? '&' : '?')
				.append(fields[i])
				.append('=')
				.append(URLEncoder.encode(fields[i + 1], StandardCharsets.UTF_8));
			query = true;
		}
		return out.toString();
	}

	private static Html field(String type, String name, @Nullable String value) {
		return (type.equals("datetime-local"))
				? empty("input", "type", type, "name", name, "step", "1", "value", (value != null) ? value : "")
				: empty("input", "type", type, "name", name, "value", (value != null) ? value : "");
	}

	private static @Nullable String time(@Nullable Instant instant) {
		return (instant != null) ? FIELD.format(instant) : null;
	}

}
