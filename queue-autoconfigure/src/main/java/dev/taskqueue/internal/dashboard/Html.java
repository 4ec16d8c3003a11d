package dev.taskqueue.internal.dashboard;

import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A piece of HTML that is safe to send: the one place where the dashboard escapes. Text, attribute values and any
 * object passed as a child are escaped; only {@link Html} children go in as they are, and the only way to make
 * {@link Html} from a string without escaping is {@link #markup(String)}, for constants of the dashboard's own.
 * Tag and attribute names are constants of the callers, never data.
 */
final class Html {

	static final Html EMPTY = new Html("");

	private final String html;

	private Html(String html) {
		this.html = html;
	}

	/** Markup written into the dashboard's code. Never pass data here. */
	static Html markup(String constant) {
		return new Html(constant);
	}

	/** {@code value} as text; {@code null} is empty. */
	static Html text(@Nullable Object value) {
		return (value instanceof Html html) ? html : new Html(escape((value != null) ? value.toString() : ""));
	}

	/**
	 * An element.
	 * @param name the tag name, such as {@code "td"}
	 * @param attributes name and value pairs; a {@code null} value leaves the attribute out, {@code ""} writes it
	 * without a value
	 * @param children its content: {@link Html} as it is, anything else as text
	 */
	static Html element(String name, List<@Nullable String> attributes, @Nullable Object... children) {
		StringBuilder out = new StringBuilder().append('<').append(name);
		for (int i = 0; i + 1 < attributes.size(); i += 2) {
			String value = attributes.get(i + 1);
			if (value != null) {
				out.append(' ').append(attributes.get(i));
				if (!value.isEmpty()) {
					out.append("=\"").append(escape(value)).append('"');
				}
			}
		}
		out.append('>');
		for (Object child : children) {
			out.append(text(child).html);
		}
		return new Html(out.append("</").append(name).append('>').toString());
	}

	/** An element without attributes. */
	static Html tag(String name, @Nullable Object... children) {
		return element(name, List.of(), children);
	}

	/** Attribute name and value pairs for {@link #element}. */
	static List<@Nullable String> attrs(@Nullable String... pairs) {
		return Arrays.asList(pairs);
	}

	/** An element without an end tag, such as {@code input}. */
	static Html empty(String name, @Nullable String... pairs) {
		String element = element(name, Arrays.asList(pairs)).html;
		return new Html(element.substring(0, element.length() - name.length() - 3));
	}

	/** The pieces one after the other. */
	static Html join(List<?> pieces) {
		StringBuilder out = new StringBuilder();
		for (Object piece : pieces) {
			out.append(text(piece).html);
		}
		return new Html(out.toString());
	}

	static Html join(Object... pieces) {
		return join(List.of(pieces));
	}

	static String escape(String text) {
		StringBuilder out = null;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			String replacement = switch (c) {
				case '<' -> "&lt;";
				case '>' -> "&gt;";
				case '&' -> "&amp;";
				case '"' -> "&quot;";
				case '\'' -> "&#39;";
				default -> null;
			};
			if (replacement != null && out == null) {
				out = new StringBuilder(text.length() + 16).append(text, 0, i);
			}
			if (out != null) {
				out.append((replacement != null) ? replacement : String.valueOf(c));
			}
		}
		return (out != null) ? out.toString() : text;
	}

	@Override
	public String toString() {
		return this.html;
	}

}
