package dev.taskqueue.internal.support;

import org.jspecify.annotations.Nullable;

/**
 * Text as PostgreSQL's {@code text} and {@code jsonb} columns can hold it. They refuse U+0000 (NUL), which fails
 * the statement and with it the transaction, and the JDBC driver writes an unpaired UTF-16 surrogate as
 * {@code ?}. Enqueue refuses such text ({@link #problem}); error text written by the worker is mended
 * ({@link #storable}), since an outcome that cannot be written would keep its task claimed.
 */
public final class PostgresText {

	/** What a NUL is, for messages. */
	public static final String NUL = "U+0000 (NUL), which PostgreSQL cannot store in text or jsonb";

	private PostgresText() {
	}

	/** Why {@code text} cannot be stored, or {@code null} if it can. */
	public static @Nullable String problem(String text) {
		int at = firstProblem(text);
		if (at < 0) {
			return null;
		}
		char c = text.charAt(at);
		return (c == 0) ? NUL : unpaired(c);
	}

	/** {@code text} with each NUL and unpaired surrogate replaced by U+FFFD. */
	public static String storable(String text) {
		int at = firstProblem(text);
		if (at < 0) {
			return text;
		}
		StringBuilder out = new StringBuilder(text.length()).append(text, 0, at);
		for (int i = at; i < text.length(); i++) {
			char c = text.charAt(i);
			if (isPair(text, i)) {
				out.append(c).append(text.charAt(++i));
			}
			else {
				out.append((c == 0 || Character.isSurrogate(c)) ? '\uFFFD' : c);
			}
		}
		return out.toString();
	}

	/** How an unpaired surrogate is named in messages. */
	public static String unpaired(char c) {
		return String.format("an unpaired UTF-16 surrogate (U+%04X), which is not Unicode text", (int) c);
	}

	/** Where the first NUL or unpaired surrogate of {@code text} is, or -1. */
	private static int firstProblem(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (isPair(text, i)) {
				i++;
			}
			else if (c == 0 || Character.isSurrogate(c)) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * The length of {@code text} in UTF-8, or, when it has at most a third as many characters as {@code limit}
	 * (at most three bytes each) and so is under it whatever they are, its length in characters: most payloads
	 * are not counted at all. Counted exactly whenever it may be over the limit, so the message says the size.
	 */
	public static long utf8Length(String text, long limit) {
		int length = text.length();
		if ((long) length * 3 <= limit) {
			return length;
		}
		long bytes = 0;
		for (int i = 0; i < length; i++) {
			char c = text.charAt(i);
			if (c < 0x80) {
				bytes++;
			}
			else if (c < 0x800) {
				bytes += 2;
			}
			else if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
				bytes += 4;
				i++;
			}
			else {
				bytes += 3;
			}
		}
		return bytes;
	}

	private static boolean isPair(String text, int at) {
		return Character.isHighSurrogate(text.charAt(at)) && at + 1 < text.length()
				&& Character.isLowSurrogate(text.charAt(at + 1));
	}

}
