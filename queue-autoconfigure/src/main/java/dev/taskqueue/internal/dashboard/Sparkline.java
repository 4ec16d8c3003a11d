package dev.taskqueue.internal.dashboard;

import java.util.ArrayList;
import java.util.List;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.tag;

/** A small bar chart of one count per minute, as inline SVG: no script, nothing fetched. */
final class Sparkline {

	private static final int BAR = 3;

	private static final int HEIGHT = 24;

	private Sparkline() {
	}

	/**
	 * Bars for {@code perMinute}, oldest on the left.
	 * @param perMinute one count per minute, the oldest first
	 * @param style the CSS class that colours the bars
	 * @param label what the chart counts, for its tooltip and screen readers
	 */
	static Html bars(long[] perMinute, String style, String label) {
		long max = 1;
		long total = 0;
		for (long count : perMinute) {
			max = Math.max(max, count);
			total += count;
		}
		List<Html> bars = new ArrayList<>();
		for (int i = 0; i < perMinute.length; i++) {
			if (perMinute[i] > 0) {
				// At least one pixel: a minute with one task must not look like a minute with none.
				long height = Math.max(1, Math.round((double) perMinute[i] * HEIGHT / max));
				bars.add(element("rect", attrs("x", String.valueOf(i * BAR), "y", String.valueOf(HEIGHT - height),
						"width", String.valueOf(BAR - 1), "height", String.valueOf(height))));
			}
		}
		String title = String.format("%s: %,d in the last %d minutes (at most %,d a minute)", label, total,
				perMinute.length, (total > 0) ? max : 0);
		return element("svg",
				attrs("class", "spark " + style, "width", String.valueOf(perMinute.length * BAR), "height",
						String.valueOf(HEIGHT), "viewBox", "0 0 " + perMinute.length * BAR + " " + HEIGHT, "role",
						"img", "aria-label", title),
				tag("title", title), Html.join(bars));
	}

}
