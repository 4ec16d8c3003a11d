package dev.taskqueue.internal.dashboard;

import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Where a page of tasks ends, to read the next one from there (keyset paging). Its text form goes into links.
 *
 * @param priority the last task's priority (0 where the order has none)
 * @param micros the last task's time in the order (due, claimed or failed), in microseconds since the epoch
 * @param id the last task's id
 */
record Keyset(int priority, long micros, UUID id) {

	// The times PostgreSQL and java.time both hold: 0001-01-01 to 9999-12-31, in microseconds since the epoch. A
	// cursor outside them is not one a "next" link wrote, and the statement would fail with a range error (a 500).
	static final long MIN_MICROS = -62_135_596_800_000_000L;

	static final long MAX_MICROS = 253_402_300_799_999_999L;

	private static final Pattern TEXT = Pattern.compile("(-?[0-9]{1,10})_(-?[0-9]{1,19})_([0-9a-fA-F-]{36})");

	/**
	 * The keyset written by {@link #toString()}, or {@code null} for none.
	 * @throws IllegalArgumentException if {@code text} is not one
	 */
	static @Nullable Keyset parse(@Nullable String text) {
		if (text == null || text.isEmpty()) {
			return null;
		}
		Matcher matcher = TEXT.matcher(text);
		Keyset keyset = null;
		try {
			if (matcher.matches()) {
				keyset = new Keyset(Integer.parseInt(matcher.group(1)), Long.parseLong(matcher.group(2)),
						UUID.fromString(matcher.group(3)));
			}
		}
		catch (IllegalArgumentException ex) {
			// out of range: the message below
		}
		if (keyset == null) {
			throw new IllegalArgumentException("after must be a cursor from a 'next' link but was '" + text + "'");
		}
		if (keyset.micros() < MIN_MICROS || keyset.micros() > MAX_MICROS) {
			throw new IllegalArgumentException("after must be a cursor from a 'next' link but was '" + text
					+ "': its time is outside the years 1 to 9999");
		}
		return keyset;
	}

	@Override
	public String toString() {
		return this.priority + "_" + this.micros + "_" + this.id;
	}

}
