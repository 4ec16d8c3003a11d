package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** How the pages write times, ages, counts and payloads. */
final class Formats {

	private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'")
		.withZone(ZoneOffset.UTC);

	private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'")
		.withZone(ZoneOffset.UTC);

	private static final JsonMapper JSON = new JsonMapper();

	private Formats() {
	}

	/** A time on the database clock, in UTC to the second. */
	static String time(@Nullable Instant instant) {
		return (instant != null) ? TIME.format(instant) : "";
	}

	/**
	 * A time as people read it, {@code 3 min ago} or {@code in 2 h}, with the exact UTC time on hover: a
	 * {@code <time>} element whose {@code datetime} is the instant and whose {@code title} is {@link #time}.
	 * @param now the database clock's now, which the times shown are on
	 */
	static Html when(@Nullable Instant instant, Instant now) {
		if (instant == null) {
			return Html.EMPTY;
		}
		return Html.element("time", Html.attrs("datetime", ISO.format(instant), "title", time(instant)),
				relative(instant, now));
	}

	/** {@code instant} from {@code now} in its largest whole unit: {@code just now}, {@code 45 s ago}, {@code in 3 d}. */
	static String relative(Instant instant, Instant now) {
		Duration distance = Duration.between(now, instant);
		long seconds = distance.abs().toSeconds();
		if (seconds == 0) {
			return "just now";
		}
		String amount;
		if (seconds < 60) {
			amount = seconds + " s";
		}
		else if (seconds < 3600) {
			amount = seconds / 60 + " min";
		}
		else if (seconds < 86400) {
			amount = seconds / 3600 + " h";
		}
		else {
			amount = seconds / 86400 + " d";
		}
		return distance.isNegative() ? amount + " ago" : "in " + amount;
	}

	/** An age in its two largest units: {@code 45s}, {@code 3m 20s}, {@code 2h 5m}, {@code 3d 4h}. */
	static String age(Duration age) {
		long seconds = Math.max(0, age.toSeconds());
		if (seconds < 60) {
			return (seconds == 0 && age.toMillis() > 0) ? age.toMillis() + "ms" : seconds + "s";
		}
		if (seconds < 3600) {
			return seconds / 60 + "m " + seconds % 60 + "s";
		}
		if (seconds < 86400) {
			return seconds / 3600 + "h " + seconds % 3600 / 60 + "m";
		}
		return seconds / 86400 + "d " + seconds % 86400 / 3600 + "h";
	}

	/** A count that stops at {@code limit}: the statistics stop counting there. */
	static String count(long count, int limit) {
		return (count >= limit) ? String.format("%,d+", limit) : String.format("%,d", count);
	}

	/** "1 dead task", "2,500 dead tasks": {@code count} tasks of a {@code kind}. */
	static String tasks(long count, String kind) {
		return String.format("%,d %s %s", count, kind, (count == 1) ? "task" : "tasks");
	}

	/**
	 * "the 1 dead task that matches", "the 2,500 dead tasks that match", "the 10,000+ dead tasks that match": what
	 * a bulk action's confirmation takes, counted up to {@code limit}.
	 */
	static String matching(long count, int limit, String kind) {
		return "the " + count(count, limit) + " " + kind + ((count == 1) ? " task that matches" : " tasks that match");
	}

	/** A size in bytes, in KB below a megabyte and in MB with one decimal above. */
	static String size(long bytes) {
		return (bytes < 1024 * 1024) ? String.format(Locale.ROOT, "%,d KB", bytes / 1024)
				: String.format(Locale.ROOT, "%,.1f MB", bytes / (1024.0 * 1024.0));
	}

	/** The payload indented for reading; as stored when it is not JSON. */
	static String prettyJson(String json) {
		try {
			return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.readTree(json));
		}
		catch (JacksonException ex) {
			return json;
		}
	}

	/** At most {@code max} characters of {@code text}, with an ellipsis when cut. */
	static String shorten(@Nullable String text, int max) {
		if (text == null) {
			return "";
		}
		return (text.length() <= max) ? text : text.substring(0, max - 1) + "…";
	}

	/** The first line of an error: the exception and its message. */
	static String firstLine(@Nullable String error) {
		if (error == null) {
			return "";
		}
		int end = error.indexOf('\n');
		return (end >= 0) ? error.substring(0, end).stripTrailing() : error;
	}

}
