package dev.taskqueue;

/**
 * Masks or hides what TaskQueue shows of tasks: their payloads and error text, on the dashboard, in the
 * {@code taskqueue} actuator endpoint, and in the worker's log lines of failed attempts (the failure's first line,
 * and on the last attempt the whole error as this shows it instead of the exception's stack trace). TaskQueue logs
 * no payload. Declare a bean to replace the default, which shows everything as stored;
 * {@code taskqueue.redaction.hide-payloads=true} hides every payload whatever the redactor. TaskQueue's own reads for
 * handlers and {@link TaskQueueOperations} are never redacted, nor what other libraries log: this is for people
 * looking on.
 * <p>
 * Both methods are called for every task shown (on the thread of a page or endpoint request) and every failure
 * logged (on the handler's thread), and must be cheap and not throw. The dashboard reads only the start of a large payload or error (a few hundred characters on its lists,
 * 64 KB on the page of one task), so {@code json} may be cut and not parse: mask such a text whole rather than show
 * it.
 */
public interface TaskRedactor {

	/** Shows payloads and errors as stored: the default. */
	TaskRedactor NONE = new TaskRedactor() {
	};

	/** What a hidden payload shows as: a JSON string, so that the endpoint's JSON stays valid. */
	String HIDDEN = "\"(hidden)\"";

	/**
	 * The payload to show instead of {@code json}.
	 * @param queue the task's queue
	 * @param json the payload as stored JSON text, or only its start (see above)
	 * @return JSON text to show (the endpoint embeds it as JSON), such as {@link #HIDDEN}
	 */
	default String payload(String queue, String json) {
		return json;
	}

	/**
	 * The error to show instead of {@code error}: the exception, its message and stack trace a failed attempt left.
	 * @param queue the task's queue
	 * @param error the error as stored, or only its start
	 * @return the text to show
	 */
	default String error(String queue, String error) {
		return error;
	}

}
