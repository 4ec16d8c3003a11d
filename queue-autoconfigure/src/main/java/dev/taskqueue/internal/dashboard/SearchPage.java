package dev.taskqueue.internal.dashboard;

import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.internal.dashboard.DashboardQueries.Found;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/**
 * What the search box of every page finds: the tasks whose id, unique key, ordering key or batch id is the text,
 * waiting, running, dead or completed, at most {@code search-limit} of them.
 */
final class SearchPage {

	private SearchPage() {
	}

	/**
	 * @param text what was searched for, or {@code null} when nothing was
	 * @param found what was found, at most {@code limit}
	 * @param more whether there is more than {@code limit}
	 */
	static String render(PageContext context, @Nullable String text, List<Found> found, boolean more, int limit) {
		List<Html> body = new ArrayList<>();
		if (text == null) {
			body.add(element("p", attrs("class", "note"), "Type a task's id, a unique key, an ordering key or a batch "
					+ "id in the box above: it finds waiting, running and dead tasks, and those kept in the history, "
					+ "by any of them."));
			return Layout.page(context, "Find a task", null, join(body));
		}
		String count = found.isEmpty() ? "No task" : more ? "The first " + limit + " tasks"
				: (found.size() == 1) ? "1 task" : found.size() + " tasks";
		body.add(tag("p", count + " whose id, unique key, ordering key or batch id is ", element("code", attrs(), text),
				"."));
		if (!found.isEmpty()) {
			body.add(Column.table(columns(context), found, ""));
		}
		if (more) {
			body.add(element("p", attrs("class", "note"), "More match: the search shows at most " + limit
					+ " (taskqueue.dashboard.search-limit)."));
		}
		return Layout.page(context, "Find " + Formats.shorten(text, 60), null, join(body));
	}

	private static List<Column<Found>> columns(PageContext context) {
		return List.of(Column.wide("task", (f) -> inHistory(f)
				? element("span", attrs("class", "id"), f.id().toString())
				: element("a", attrs("href", context.url("/tasks/" + f.id()), "class", "id"), f.id().toString())),
				Column.text("queue", (f) -> element("a", attrs("href", context.url("/queues/" + f.queue())), f.queue())),
				Column.text("state", (f) -> element("span", attrs("class", "state " + f.state()), f.state())),
				Column.text("found by", Found::matched),
				Column.text("when", (f) -> join(when(f), " ", Formats.when(f.at(), context.now()))),
				Column.wide("key", (f) -> (f.key() != null) ? f.key() : ""));
	}

	private static String when(Found found) {
		return switch (found.state()) {
			case "running" -> "claimed";
			case "dead" -> "failed";
			case "completed" -> "completed";
			case "cancelled" -> "cancelled";
			default -> "due";
		};
	}

	/** A completed or cancelled task, found in the history: it has no page. */
	private static boolean inHistory(Found found) {
		return found.state().equals("completed") || found.state().equals("cancelled");
	}

}
