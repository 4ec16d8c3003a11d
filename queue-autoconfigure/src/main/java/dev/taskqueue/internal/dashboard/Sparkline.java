package dev.taskqueue.internal.dashboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongFunction;

import dev.taskqueue.internal.dashboard.Trends.Span;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.tag;

/** Small bar charts as inline SVG: no script, nothing fetched. */
final class Sparkline {

	private static final int BAR = 3;

	private static final int HEIGHT = 24;

	private static final int TREND_HEIGHT = 40;

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
				bars.add(rect(i, height(perMinute[i], max, HEIGHT), HEIGHT, null, null));
			}
		}
		String title = String.format("%s: %,d in the last %d minutes (at most %,d a minute)", label, total,
				perMinute.length, (total > 0) ? max : 0);
		return svg("spark " + style, perMinute.length * BAR, HEIGHT, title, bars);
	}

	/**
	 * A trend: one bar per bar of {@code span}, oldest on the left, each with its own tooltip; a bar of {@code -1}
	 * (no sample) is left out, so a gap in the samples shows as one.
	 * @param values one figure per bar
	 * @param style the CSS class that colours the bars
	 * @param label what the chart shows, for its tooltips and screen readers
	 * @param format how a figure is written
	 */
	static Html trend(long[] values, Span span, String style, String label, LongFunction<String> format) {
		long max = -1;
		for (long value : values) {
			max = Math.max(max, value);
		}
		List<Html> bars = new ArrayList<>();
		for (int i = 0; i < values.length; i++) {
			if (values[i] >= 0) {
				String when = when(values.length - 1 - i, span.minutesPerBar());
				// A figure of zero is a sample too: a pale line, apart from the gap of no sample.
				bars.add(rect(i, Math.max(1, height(values[i], Math.max(max, 1), TREND_HEIGHT)), TREND_HEIGHT,
						(values[i] == 0) ? "zero" : null, label + ", " + when + ": " + format.apply(values[i])));
			}
		}
		return svg("spark trend " + style, values.length * BAR, TREND_HEIGHT, label + ", "
				+ span.title().toLowerCase(Locale.ROOT) + ((max < 0) ? "; no sample" : "; at most " + format.apply(max)),
				bars);
	}

	/** Which minutes bar {@code barsAgo} (0 for the newest) stands for, as a tooltip says it. */
	static String when(int barsAgo, int minutesPerBar) {
		if (minutesPerBar == 1) {
			return (barsAgo == 0) ? "this minute" : barsAgo + " min ago";
		}
		long from = (long) (barsAgo + 1) * minutesPerBar;
		long to = (long) barsAgo * minutesPerBar;
		return ((to == 0) ? "the last " + ago(from) : ago(from) + " to " + ago(to) + " ago");
	}

	private static String ago(long minutes) {
		if (minutes < 60) {
			return minutes + " min";
		}
		return minutes / 60 + "h" + ((minutes % 60 != 0) ? " " + minutes % 60 + "m" : "");
	}

	/** At least one pixel: a bar of one must not look like a bar of none. */
	private static long height(long value, long max, int height) {
		return (value == 0) ? 0 : Math.max(1, Math.round((double) value * height / max));
	}

	private static Html rect(int index, long height, int chartHeight, @Nullable String style,
			@Nullable String title) {
		return element("rect", attrs("x", String.valueOf(index * BAR), "y", String.valueOf(chartHeight - height),
				"width", String.valueOf(BAR - 1), "height", String.valueOf(height), "class", style),
				(title != null) ? tag("title", title) : null);
	}

	private static Html svg(String style, int width, int height, String title, List<Html> bars) {
		return element("svg",
				attrs("class", style, "width", String.valueOf(width), "height", String.valueOf(height), "viewBox",
						"0 0 " + width + " " + height, "role", "img", "aria-label", title),
				tag("title", title), Html.join(bars));
	}

}
