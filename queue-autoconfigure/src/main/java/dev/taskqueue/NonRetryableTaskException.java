package dev.taskqueue;

/**
 * Thrown by a handler when retrying cannot help: the task goes straight to the dead letters with this message.
 */
public class NonRetryableTaskException extends RuntimeException {

	public NonRetryableTaskException(String message) {
		super(message);
	}

	public NonRetryableTaskException(String message, Throwable cause) {
		super(message, cause);
	}

}
