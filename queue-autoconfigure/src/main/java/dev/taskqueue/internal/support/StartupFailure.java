package dev.taskqueue.internal.support;

/**
 * A reason TaskQueue stops the application at startup, with what to do about it. Spring Boot reports it as its
 * {@code APPLICATION FAILED TO START} block, Description and Action ({@link StartupFailureAnalyzer}), instead of
 * a stack trace in which the reason is one line of many.
 * <p>
 * Its message is the description, so code and tests that read the message see what they saw before. An
 * {@link IllegalStateException}: the application cannot start in the state it is in.
 * <p>
 * Internal: loaded by {@link StartupFailureAnalyzer} on any Spring Boot, so it uses the JDK only.
 */
public class StartupFailure extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String action;

	/**
	 * @param description what is wrong, one line where it can be
	 * @param action what to do about it
	 */
	public StartupFailure(String description, String action) {
		super(description);
		this.action = action;
	}

	/**
	 * @param description what is wrong, one line where it can be
	 * @param action what to do about it
	 * @param cause the check's own exception, kept so that code reading the cause chain finds it
	 */
	public StartupFailure(String description, String action, Throwable cause) {
		super(description, cause);
		this.action = action;
	}

	/** What is wrong: the message. */
	public String description() {
		String message = getMessage();
		return (message != null) ? message : "";
	}

	/** What to do about it. */
	public String action() {
		return this.action;
	}

}
