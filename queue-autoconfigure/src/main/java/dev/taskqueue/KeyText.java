package dev.taskqueue;

import org.jspecify.annotations.Nullable;

/**
 * Whether a key can be stored in PostgreSQL's {@code text}: no U+0000 (NUL), no unpaired UTF-16 surrogate. The same
 * check as {@code support.PostgresText#problem}, with the same words, kept here so that the public package depends
 * on no internal one; {@code KeyTextTests} holds the two to each other.
 */
final class KeyText {

	private KeyText() {
	}

	/** Why {@code key} cannot be stored, or {@code null} if it can. */
	static @Nullable String problem(String key) {
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
				i++;
			}
			else if (c == 0) {
				return "U+0000 (NUL), which PostgreSQL cannot store in text or jsonb";
			}
			else if (Character.isSurrogate(c)) {
				return String.format("an unpaired UTF-16 surrogate (U+%04X), which is not Unicode text", (int) c);
			}
		}
		return null;
	}

}
