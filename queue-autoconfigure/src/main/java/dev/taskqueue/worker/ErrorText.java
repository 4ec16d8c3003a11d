package dev.taskqueue.worker;

import java.io.PrintWriter;
import java.io.StringWriter;

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
		failure.printStackTrace(new PrintWriter(out));
		String text = out.toString();
		return (text.length() <= MAX_LENGTH) ? text : text.substring(0, MAX_LENGTH) + "\n\t... (truncated)";
	}

	/** The first line only: exception class and message, for logs. */
	static String summary(Throwable failure) {
		return failure.getClass().getName() + ((failure.getMessage() != null) ? ": " + failure.getMessage() : "");
	}

}
