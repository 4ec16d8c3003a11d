package dev.taskqueue.internal.dashboard;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.empty;
import static dev.taskqueue.internal.dashboard.Html.tag;

/** The frame around every page: head, navigation, the message of the last action. */
final class Layout {

	private Layout() {
	}

	/**
	 * A whole page.
	 * @param refresh how often the page reloads itself, or {@code null} for never
	 */
	static String page(PageContext context, String title, @Nullable Duration refresh, Html body) {
		Html head = tag("head", empty("meta", "charset", "utf-8"),
				empty("meta", "name", "viewport", "content", "width=device-width, initial-scale=1"),
				(refresh != null) ? empty("meta", "http-equiv", "refresh", "content", String.valueOf(refresh.toSeconds()))
						: Html.EMPTY,
				tag("title", title + " · TaskQueue"),
				empty("link", "rel", "stylesheet", "href", context.url("/dashboard.css")));
		Html nav = tag("nav", element("a", attrs("href", context.url(""), "class", "brand"), "TaskQueue"),
				element("a", attrs("href", context.url("")), "Overview"),
				element("a", attrs("href", context.url("/dead")), "Dead letters"),
				context.readOnly() ? element("span", attrs("class", "badge"), "read-only") : Html.EMPTY);
		Html flash = (context.flash() != null)
				? element("p", attrs("class", "flash", "role", "status"), context.flash()) : Html.EMPTY;
		return "<!DOCTYPE html>\n"
				+ element("html", attrs("lang", "en"), head, tag("body", nav, tag("main", flash, tag("h1", title), body)));
	}

}
