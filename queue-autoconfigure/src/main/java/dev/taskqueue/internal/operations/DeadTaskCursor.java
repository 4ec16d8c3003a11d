package dev.taskqueue.internal.operations;

import java.time.Instant;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.taskqueue.DeadTask;
import org.jspecify.annotations.Nullable;

/**
 * Where a page of dead tasks starts: after the task that failed at {@code failedAt} with {@code id}, in the order
 * newest first. Written as {@code <microseconds since the epoch>_<id>}: the database keeps microseconds, so the
 * text is exact and safe in a URL.
 */
record DeadTaskCursor(Instant failedAt, UUID id) {

	private static final Pattern TEXT = Pattern.compile("(-?[0-9]{1,19})_([0-9a-fA-F-]{36})");

	static DeadTaskCursor after(DeadTask task) {
		return new DeadTaskCursor(task.failedAt(), task.id());
	}

	/**
	 * The cursor written as {@code text}, {@code null} for {@code null}.
	 * @throws IllegalArgumentException if {@code text} is not a cursor
	 */
	static @Nullable DeadTaskCursor parse(@Nullable String text) {
		if (text == null) {
			return null;
		}
		Matcher matcher = TEXT.matcher(text);
		try {
			if (matcher.matches()) {
				long micros = Long.parseLong(matcher.group(1));
				Instant failedAt = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000),
						Math.floorMod(micros, 1_000_000) * 1_000L);
				return new DeadTaskCursor(failedAt, UUID.fromString(matcher.group(2)));
			}
		}
		catch (IllegalArgumentException ex) {
			// falls through to the message below, which says what a cursor is
		}
		throw new IllegalArgumentException(
				"cursor must be the 'next' of a page of dead tasks but was '" + text + "'");
	}

	@Override
	public String toString() {
		long micros = Math.addExact(Math.multiplyExact(this.failedAt.getEpochSecond(), 1_000_000L),
				this.failedAt.getNano() / 1_000);
		return micros + "_" + this.id;
	}

}
