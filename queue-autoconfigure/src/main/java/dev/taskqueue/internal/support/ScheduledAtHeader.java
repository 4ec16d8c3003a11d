package dev.taskqueue.internal.support;

import java.time.Instant;
import java.time.format.DateTimeParseException;

import org.jspecify.annotations.Nullable;

/**
 * The header that carries the tick of a recurring schedule to its task's {@code TaskContext#scheduledAt()}. Read
 * with a string search rather than a JSON parse, because it is read for every task and almost none has it.
 */
public final class ScheduledAtHeader {

	public static final String NAME = "taskqueue-scheduled-at";

	private static final String QUOTED_NAME = '"' + NAME + '"';

	private ScheduledAtHeader() {
	}

	/** The headers of a task made by the tick due at {@code tick}, as a JSON object. */
	public static String headers(Instant tick) {
		return "{" + QUOTED_NAME + ":\"" + tick + "\"}";
	}

	/** The tick in {@code headers} (a JSON object of strings), {@code null} when there is none. */
	public static @Nullable Instant read(@Nullable String headers) {
		int name = (headers != null) ? headers.indexOf(QUOTED_NAME) : -1;
		if (name < 0) {
			return null;
		}
		int start = headers.indexOf('"', headers.indexOf(':', name + QUOTED_NAME.length()) + 1);
		int end = (start >= 0) ? headers.indexOf('"', start + 1) : -1;
		if (end < 0) {
			return null;
		}
		try {
			return Instant.parse(headers.substring(start + 1, end));
		}
		catch (DateTimeParseException ex) {
			return null; // a header of the application's with our name: not ours to fail the task on
		}
	}

}
