package dev.taskqueue.internal.dashboard;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.empty;
import static dev.taskqueue.internal.dashboard.Html.tag;

/** The pages that are only a sentence: the confirmation an action asks for, and errors. */
final class MessagePage {

	private MessagePage() {
	}

	/**
	 * Asks to confirm an action that cannot be undone; the form posts it again with {@code confirm} set to a token
	 * minted for this action (ActionGuard), so that no request confirms an action without this page.
	 * @param action the action's path under the dashboard
	 * @param back where "Keep it" leads, under the dashboard
	 * @param confirmToken the token that confirms this action
	 * @param hidden name and value pairs of hidden fields the action is posted with again
	 */
	static String confirm(PageContext context, String question, String action, String label, String back,
			String confirmToken, String... hidden) {
		Html[] fields = new Html[hidden.length / 2];
		for (int i = 0; i + 1 < hidden.length; i += 2) {
			fields[i / 2] = empty("input", "type", "hidden", "name", hidden[i], "value", hidden[i + 1]);
		}
		return Layout.page(context, "Confirm", null, Html.join(tag("p", question),
				element("form", attrs("method", "post", "action", context.url(action), "class", "confirm"),
						empty("input", "type", "hidden", "name", ActionGuard.CONFIRM_FIELD, "value", confirmToken), Html.join((Object[]) fields),
						Forms.csrf(context),
						element("button", attrs("type", "submit", "class", "danger", "id", "confirm"), label), " ",
						element("a", attrs("href", context.url(back)), "No, go back"))));
	}

	static String error(PageContext context, String title, String message) {
		return Layout.page(context, title, null, element("p", attrs("class", "problem"), message));
	}

}
