package dev.taskqueue.internal.worker;

import java.io.PrintWriter;
import java.io.StringWriter;

import dev.taskqueue.internal.support.PostgresText;

import org.springframework.core.NestedExceptionUtils;

/**
 * Turns a handler's failure into the text stored with the task: the exception, its message and a stack trace
 * short enough for a database column and long enough for a person to find the cause.
 */
final class ErrorText {

	private static final int MAX_LENGTH = 8_000;

	private ErrorText() {
	}

	static String of(Throwable failure) {
		StringWriter out = new StringWriter();
		try {
			failure.printStackTrace(new PrintWriter(out));
		}
		catch (RuntimeException ex) {
			// An exception whose getMessage() or toString() throws: its class is still worth keeping.
			out = new StringWriter().append(failure.getClass().getName())
				.append(" (its message could not be read: ")
				.append(ex.getClass().getName())
				.append(")");
		}
		String text = PostgresText.storable(out.toString());
		if (text.length() <= MAX_LENGTH) {
			return text;
		}
		int end = Character.isHighSurrogate(text.charAt(MAX_LENGTH - 1)) ? MAX_LENGTH - 1 : MAX_LENGTH;
		return text.substring(0, end) + "\n\t... (truncated)";
	}

	/**
	 * One line for logs: the exception and its message, and the innermost cause when there is one, which for
	 * Spring's data access exceptions is the database's own word ("permission denied", "connection refused").
	 */
	static String summary(Throwable failure) {
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(failure);
		return firstLine(failure) + ((cause != failure) ? "; caused by " + firstLine(cause) : "");
	}

	private static String firstLine(Throwable failure) {
		String message;
		try {
			message = failure.getMessage();
		}
		catch (RuntimeException ex) {
			message = "(its message could not be read: " + ex.getClass().getName() + ")";
		}
		if (message != null && message.indexOf('\n') >= 0) {
			message = message.substring(0, message.indexOf('\n'));
		}
		return failure.getClass().getName() + ((message != null) ? ": " + message : "");
	}

}
