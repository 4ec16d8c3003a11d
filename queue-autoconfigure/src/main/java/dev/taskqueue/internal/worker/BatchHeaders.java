package dev.taskqueue.internal.worker;

import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.taskqueue.BatchInfo;
import org.jspecify.annotations.Nullable;

/**
 * Reads the batch a {@code then} task follows from the headers the batch sweep gave it ({@code BatchRepository}).
 * The headers are PostgreSQL's text of a {@code jsonb} object of strings, so a pattern finds each value; the
 * headers of any other task do not hold the key and cost one {@code contains}.
 */
final class BatchHeaders {

	static final String ID = "taskqueue-batch-id";

	private static final Pattern VALUE = Pattern.compile("\"(taskqueue-batch-[a-z]+)\": \"([^\"]*)\"");

	private BatchHeaders() {
	}

	static @Nullable BatchInfo batch(@Nullable String headers) {
		if (headers == null || !headers.contains(ID)) {
			return null;
		}
		String id = null;
		int total = 0;
		int completed = 0;
		int dead = 0;
		Matcher matcher = VALUE.matcher(headers);
		while (matcher.find()) {
			String value = matcher.group(2);
			switch (matcher.group(1)) {
				case ID -> id = value;
				case "taskqueue-batch-total" -> total = Integer.parseInt(value);
				case "taskqueue-batch-completed" -> completed = Integer.parseInt(value);
				case "taskqueue-batch-dead" -> dead = Integer.parseInt(value);
				default -> {
				}
			}
		}
		return (id != null) ? new BatchInfo(UUID.fromString(id), total, completed, dead) : null;
	}

}
