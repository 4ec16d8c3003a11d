package dev.taskqueue.internal.producer;

import java.math.BigDecimal;
import java.util.Map;

import dev.taskqueue.internal.support.PostgresText;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What PostgreSQL's {@code text} and {@code jsonb} columns cannot hold, found before any SQL runs: U+0000 (NUL),
 * which PostgreSQL rejects ("unsupported Unicode escape sequence") and so aborts the caller's transaction, and
 * unpaired UTF-16 surrogates, which the JDBC driver silently writes as {@code ?}; and, in JSON, numbers beyond
 * the range of PostgreSQL's {@code numeric} (which {@code jsonb} numbers are), such as a {@code BigDecimal} of
 * {@code 1E+200000}.
 */
final class StorableText {

	/** The most digits PostgreSQL's numeric holds before the decimal point. */
	private static final int NUMERIC_INTEGER_DIGITS = 131_072;

	/** The most digits PostgreSQL's numeric holds after the decimal point. */
	private static final int NUMERIC_FRACTION_DIGITS = 16_383;

	private StorableText() {
	}

	/**
	 * Why the JSON {@code json} cannot be stored, naming where in it (such as {@code $.lines[2].note}), or
	 * {@code null} if it can. One pass over the text; the JSON is parsed only to say where a problem is.
	 */
	static @Nullable String jsonProblem(String json, JsonMapper mapper) {
		if (isStorableJson(json)) {
			return numberProblem(json);
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
		return "it contains " + PostgresText.NUL + ", or an unpaired UTF-16 surrogate";
	}

	/**
	 * Why {@code json} is not one JSON value, or {@code null} if it is. Jackson writes what a {@code @JsonRawValue}
	 * field or a {@code RawValue} holds without looking at it, and PostgreSQL's refusal of the text ("invalid input
	 * syntax for type json") would fail the caller's transaction. A streaming pass: no tree is built.
	 */
	static @Nullable String syntaxProblem(String json, JsonMapper mapper) {
		try (JsonParser parser = mapper.createParser(json)) {
			if (parser.nextToken() == null) {
				return "it is empty";
			}
			parser.skipChildren();
			if (parser.nextToken() != null) {
				return "more follows its value, at character " + parser.currentTokenLocation().getCharOffset();
			}
			return null;
		}
		catch (StreamConstraintsException ex) {
			// Valid JSON perhaps, but beyond what Jackson reads (such as a string of more than 100 million
			// characters): the worker could not read it either.
			return "it cannot be read back: " + ex.getOriginalMessage();
		}
		catch (JacksonException ex) {
			return ex.getOriginalMessage();
		}
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

	/**
	 * Why a number of {@code json} cannot be stored in jsonb, or {@code null} if all can. Only a number with an
	 * exponent, or a very long one, can be out of range, so most payloads are not scanned at all.
	 */
	static @Nullable String numberProblem(String json) {
		if (json.indexOf('e') < 0 && json.indexOf('E') < 0 && json.length() < NUMERIC_FRACTION_DIGITS) {
			return null;
		}
		boolean inString = false;
		for (int i = 0; i < json.length(); i++) {
			char c = json.charAt(i);
			if (inString) {
				if (c == '\\') {
					i++;
				}
				else if (c == '"') {
					inString = false;
				}
			}
			else if (c == '"') {
				inString = true;
			}
			else if (c == '-' || (c >= '0' && c <= '9')) {
				int end = i + 1;
				while (end < json.length() && "0123456789+-.eE".indexOf(json.charAt(end)) >= 0) {
					end++;
				}
				String number = json.substring(i, end);
				if (!fitsNumeric(number)) {
					return "the number " + ((number.length() <= 40) ? number : number.substring(0, 40) + "…")
							+ " is beyond the range of PostgreSQL's numeric, which holds up to "
							+ NUMERIC_INTEGER_DIGITS + " digits before the decimal point and "
							+ NUMERIC_FRACTION_DIGITS + " after it";
				}
				i = end - 1;
			}
		}
		return null;
	}

	private static boolean fitsNumeric(String number) {
		try {
			BigDecimal value = new BigDecimal(number);
			return value.precision() - value.scale() <= NUMERIC_INTEGER_DIGITS
					&& value.scale() <= NUMERIC_FRACTION_DIGITS;
		}
		catch (NumberFormatException | ArithmeticException ex) {
			return false;
		}
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

	private static @Nullable String problemIn(JsonNode node, String path) {
		if (node.isString()) {
			String problem = PostgresText.problem(node.asString());
			return (problem != null) ? "the string at " + path + " contains " + problem : null;
		}
		if (node.isObject()) {
			for (Map.Entry<String, JsonNode> field : node.properties()) {
				String problem = PostgresText.problem(field.getKey());
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

}
