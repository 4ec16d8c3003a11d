package dev.taskqueue.internal.dashboard;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.empty;
import static dev.taskqueue.internal.dashboard.Html.tag;

/** The frame around every page: head, navigation, the message of the last action, the reload. */
final class Layout {

	/** The query parameter that stops a page from reloading itself: {@code ?refresh=off}. */
	static final String REFRESH = "refresh";

	private Layout() {
	}

	/**
	 * A whole page.
	 * @param refresh how often the page reloads itself, or {@code null} for a page that never does
	 */
	static String page(PageContext context, String title, @Nullable Duration refresh, Html body) {
		// A page that may reload says so, with a link that turns it off (or on again) for this page: the choice is
		// in the page's own address, so it outlives the reloads and needs no script and no cookie.
		boolean reloads = refresh != null && !refreshOff(context);
		Html head = tag("head", empty("meta", "charset", "utf-8"),
				empty("meta", "name", "viewport", "content", "width=device-width, initial-scale=1"),
				reloads ? empty("meta", "http-equiv", "refresh", "content", String.valueOf(refresh.toSeconds()))
						: Html.EMPTY,
				tag("title", title + " · TaskQueue"),
				empty("link", "rel", "stylesheet", "href", context.url("/dashboard.css")));
		Html nav = tag("nav", element("a", attrs("href", context.url(""), "class", "brand"), "TaskQueue"),
				element("a", attrs("href", context.url("")), "Overview"),
				element("a", attrs("href", context.url("/dead")), "Dead letters"),
				element("a", attrs("href", context.url("/audit")), "Audit log"), search(context),
				context.viewOnly() ? element("span", attrs("class", "badge"), "view only")
						: context.readOnly() ? element("span", attrs("class", "badge"), "read-only") : Html.EMPTY);
		Html flash = (context.flash() != null)
				? element("p", attrs("class", "flash", "role", "status"), context.flash()) : Html.EMPTY;
		Html reload = Html.EMPTY;
		if (refresh != null) {
			reload = reloads
					? element("p", attrs("class", "reload"), "Reloads every " + Formats.age(refresh) + " · ",
							element("a", attrs("href", context.selfWith(REFRESH, "off")), "stop reloading"))
					: element("p", attrs("class", "reload"), "Reloading is off · ",
							element("a", attrs("href", context.selfWith(REFRESH, null)), "reload every "
									+ Formats.age(refresh)));
		}
		return "<!DOCTYPE html>\n" + element("html", attrs("lang", "en"), head,
				tag("body", element("a", attrs("href", "#main", "class", "skip"), "Skip to content"), nav,
						element("main", attrs("id", "main"), flash,
								element("div", attrs("class", "title"), tag("h1", title), reload), body)));
	}

	/** Whether the page's address turns its reloading off ({@code ?refresh=off}). */
	static boolean refreshOff(PageContext context) {
		return "off".equals(param(context, REFRESH));
	}

	/**
	 * The search box, on every page: a GET form, so a search is a link like any page (and no CSRF matter). On the
	 * search's own page it holds what was searched for.
	 */
	private static Html search(PageContext context) {
		String searched = context.self().endsWith("/search") ? param(context, "q") : null;
		return element("form", attrs("method", "get", "action", context.url("/search"), "class", "search", "role",
				"search"),
				empty("input", "type", "search", "name", "q", "value", (searched != null) ? searched : "",
						"placeholder", "Task id, key or batch id", "aria-label",
						"Find a task by its id, unique key, ordering key or batch id", "maxlength",
						String.valueOf(DashboardPages.SEARCH_TEXT)),
				element("button", attrs("type", "submit"), "Find"));
	}

	/** The query parameter {@code name} of the page, decoded, or {@code null}. */
	private static @Nullable String param(PageContext context, String name) {
		if (context.query() == null) {
			return null;
		}
		for (String parameter : context.query().split("&")) {
			if (parameter.startsWith(name + "=")) {
				try {
					return URLDecoder.decode(parameter.substring(name.length() + 1), StandardCharsets.UTF_8);
				}
				catch (IllegalArgumentException ex) {
					return null;
				}
			}
		}
		return null;
	}

}
