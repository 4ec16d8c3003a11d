package dev.taskqueue.internal.dashboard;

import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.internal.dashboard.AuditEntries.Entry;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/**
 * The audit log: who did what, when and to how many rows, newest first, one page at a time; through the dashboard,
 * the actuator endpoint or the application's code alike. Entries are kept as long as the dead letters.
 */
final class AuditPage {

	private AuditPage() {
	}

	/**
	 * @param next the cursor of the page after this one, or {@code null} when this is the last
	 */
	static String render(PageContext context, List<Entry> entries, @Nullable String next) {
		List<Html> body = new ArrayList<>();
		body.add(element("p", attrs("class", "note"), "Every pause, cancel, retry, delete and trigger, by whom and "
				+ "through what, kept as long as the dead letters (taskqueue.retention.dead-letters)."));
		body.add(Column.table(columns(context), entries, "Nothing has been done yet."));
		if (next != null) {
			body.add(tag("p", element("a", attrs("href", context.url("/audit?after=" + next), "rel", "next"),
					"Next page →")));
		}
		return Layout.page(context, "Audit log", null, join(body));
	}

	private static List<Column<Entry>> columns(PageContext context) {
		return List.of(Column.text("when", (e) -> Formats.when(e.actedAt(), context.now())),
				Column.text("who", Entry::actor),
				Column.text("via", Entry::via),
				Column.text("action", Entry::action),
				Column.wide("target", Entry::target),
				Column.number("rows", (e) -> String.format("%,d", e.rows())));
	}

}
