package dev.taskqueue;

import java.util.Map;

/**
 * Wraps every handler invocation, inside the task's transaction: for tracing, MDC, security context and the like.
 * Every {@code TaskHandlerInterceptor} bean applies, in {@code @Order}.
 */
@FunctionalInterface
public interface TaskHandlerInterceptor {

	/**
	 * Runs {@code invocation}, or not.
	 * @param task the task about to run
	 * @param headers the headers stored with the task at enqueue (for example a trace context), never {@code null}
	 * @param invocation the handler, or the next interceptor
	 */
	void intercept(TaskContext task, Map<String, String> headers, Invocation invocation) throws Exception;

	/** The rest of the chain. */
	@FunctionalInterface
	interface Invocation {

		void proceed() throws Exception;

	}

}
