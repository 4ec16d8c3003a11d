package dev.taskqueue;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.lang.Contract;

/**
 * The rule for queue names: 1 to 100 letters, digits, {@code .}, {@code _}, {@code -} or {@code :}.
 */
public final class QueueName {

	private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

	private QueueName() {
	}

	/** Whether {@code name} is a valid queue name. */
	@Contract("null -> false")
	public static boolean isValid(@Nullable String name) {
		return name != null && VALID.matcher(name).matches();
	}

	/**
	 * Returns {@code name} if it is a valid queue name.
	 * @param name the name to check
	 * @param what what the name is, for the message: an argument, a property or an annotation attribute
	 * @throws IllegalArgumentException naming {@code what} if it is not
	 */
	public static String requireValid(@Nullable String name, String what) {
		if (!isValid(name)) {
			throw new IllegalArgumentException(what + " must be 1 to 100 letters, digits, '.', '_', '-' or ':' but was "
					+ ((name != null) ? "'" + name + "'" : "null"));
		}
		return name;
	}

}
