package dev.taskqueue.internal.dashboard;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.empty;

/** The buttons of the actions: each a POST form carrying the CSRF token, absent when the dashboard is read-only. */
final class Forms {

	private Forms() {
	}

	/**
	 * A button that posts to {@code action}.
	 * @param hidden name and value pairs of hidden fields
	 */
	static Html button(PageContext context, String action, String label, String style, String... hidden) {
		if (context.readOnly()) {
			return Html.EMPTY;
		}
		Html[] fields = new Html[hidden.length / 2 + 2];
		for (int i = 0; i + 1 < hidden.length; i += 2) {
			fields[i / 2] = empty("input", "type", "hidden", "name", hidden[i], "value", hidden[i + 1]);
		}
		fields[fields.length - 2] = csrf(context);
		fields[fields.length - 1] = element("button", attrs("type", "submit", "class", style), label);
		return element("form", attrs("method", "post", "action", context.url(action), "class", "inline"),
				(Object[]) fields);
	}

	/** The hidden fields of the CSRF tokens: TaskQueue's own, and Spring Security's when the request has one. */
	static Html csrf(PageContext context) {
		Html own = (context.ownToken() != null)
				? empty("input", "type", "hidden", "name", ActionGuard.TOKEN_FIELD, "value", context.ownToken())
				: Html.EMPTY;
		Html spring = (context.csrfName() != null && context.csrfToken() != null)
				? empty("input", "type", "hidden", "name", context.csrfName(), "value", context.csrfToken())
				: Html.EMPTY;
		return Html.join(own, spring);
	}

}
