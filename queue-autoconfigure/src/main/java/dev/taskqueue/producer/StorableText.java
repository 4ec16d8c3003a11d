package dev.taskqueue.producer;

import java.util.Map;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What PostgreSQL's {@code text} and {@code jsonb} columns cannot hold, found before any SQL runs: U+0000 (NUL),
 * which PostgreSQL rejects ("unsupported Unicode escape sequence") and so aborts the caller's transaction, and
 * unpaired UTF-16 surrogates, which the JDBC driver silently writes as {@code ?}.
 */
final class StorableText {

	private static final String NUL = "U+0000 (NUL), which PostgreSQL cannot store in text or jsonb";

	private StorableText() {
	}

	/** Why {@code text} cannot be stored, or {@code null} if it can. */
	static String problem(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == 0) {
				return NUL;
			}
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return unpaired(c);
			}
		}
		return null;
	}

	/**
	 * Why the JSON {@code json} cannot be stored, naming where in it (such as {@code $.lines[2].note}), or
	 * {@code null} if it can. One pass over the text; the JSON is parsed only to say where a problem is.
	 */
	static String jsonProblem(String json, JsonMapper mapper) {
		if (isStorableJson(json)) {
			return null;
		}
		try {
			String found = problemIn(mapper.readTree(json), "$");
			if (found != null) {
				return found;
			}
		}
		catch (JacksonException ex) {
			// cannot say where: the message below still says what
		}
		return "it contains " + NUL + ", or an unpaired UTF-16 surrogate";
	}

	/** Whether {@code json} has neither NUL nor an unpaired surrogate, raw or as a {@code \\u} escape. */
	private static boolean isStorableJson(String json) {
		int length = json.length();
		for (int i = 0; i < length; i++) {
			char c = json.charAt(i);
			if (c == '\\' && i + 1 < length) {
				if (json.charAt(i + 1) != 'u') {
					i++; // an escape such as \\ or \": its second character is not the start of another
					continue;
				}
				int unit = escaped(json, i);
				if (unit == 0 || Character.isLowSurrogate((char) unit)) {
					return false;
				}
				if (Character.isHighSurrogate((char) unit)) {
					if (!Character.isLowSurrogate((char) escaped(json, i + 6))) {
						return false;
					}
					i += 6;
				}
				i += 5;
			}
			else if (c == 0 || Character.isLowSurrogate(c)) {
				return false;
			}
			else if (Character.isHighSurrogate(c)) {
				if (i + 1 == length || !Character.isLowSurrogate(json.charAt(i + 1))) {
					return false;
				}
				i++;
			}
		}
		return true;
	}

	/** The code unit of the {@code \\uXXXX} escape at {@code at}, or -1 if there is none. */
	private static int escaped(String json, int at) {
		if (at + 6 > json.length() || json.charAt(at) != '\\' || json.charAt(at + 1) != 'u') {
			return -1;
		}
		try {
			return Integer.parseInt(json, at + 2, at + 6, 16);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	private static String problemIn(JsonNode node, String path) {
		if (node.isString()) {
			String problem = problem(node.asString());
			return (problem != null) ? "the string at " + path + " contains " + problem : null;
		}
		if (node.isObject()) {
			for (Map.Entry<String, JsonNode> field : node.properties()) {
				String problem = problem(field.getKey());
				if (problem != null) {
					return "a field name in " + path + " contains " + problem;
				}
				String found = problemIn(field.getValue(), path + member(field.getKey()));
				if (found != null) {
					return found;
				}
			}
		}
		if (node.isArray()) {
			for (int i = 0; i < node.size(); i++) {
				String found = problemIn(node.get(i), path + "[" + i + "]");
				if (found != null) {
					return found;
				}
			}
		}
		return null;
	}

	private static String member(String name) {
		return name.matches("[A-Za-z_$][A-Za-z0-9_$]*") ? "." + name
				: "['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']";
	}

	private static String unpaired(char c) {
		return String.format("an unpaired UTF-16 surrogate (U+%04X), which is not Unicode text", (int) c);
	}

}
