package dev.taskqueue.internal.handler;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Set;

import dev.taskqueue.TaskContext;
import org.jspecify.annotations.Nullable;

/**
 * One handler method found at startup: which queue it serves, how to read its payload and how to call it.
 *
 * @param queue the queue, placeholders resolved
 * @param beanName the name of the bean that declares it
 * @param bean the bean (or its proxy)
 * @param method the method to invoke on {@code bean}
 * @param payloadType the declared type of the payload parameter, generics included
 * @param takesContext whether the method takes a {@link TaskContext} second
 * @param concurrency the concurrency the annotation asks for, 0 when it leaves it to the configuration
 * @param maxAttempts the attempts the annotation asks for, 0 when it leaves it to the configuration
 * @param batchedCompletion whether completions are batched after the handler rather than part of its transaction
 * @param topics the topics the queue subscribes to, placeholders resolved
 * @param retryPolicy the name of the {@code RetryPolicy} bean the annotation asks for, empty for the default one
 * @param suspending whether the method is a Kotlin {@code suspend fun}, run in a coroutine on the handler thread
 */
public record TaskHandlerMethod(String queue, String beanName, Object bean, Method method, Type payloadType,
		boolean takesContext, int concurrency, int maxAttempts, boolean batchedCompletion, Set<String> topics,
		String retryPolicy, boolean suspending) {

	public TaskHandlerMethod {
		topics = Set.copyOf(topics);
	}

	/** A handler that is no Kotlin {@code suspend fun}. */
	public TaskHandlerMethod(String queue, String beanName, Object bean, Method method, Type payloadType,
			boolean takesContext, int concurrency, int maxAttempts, boolean batchedCompletion, Set<String> topics,
			String retryPolicy) {
		this(queue, beanName, bean, method, payloadType, takesContext, concurrency, maxAttempts, batchedCompletion,
				topics, retryPolicy, false);
	}

	/** A handler with the default retry policy. */
	public TaskHandlerMethod(String queue, String beanName, Object bean, Method method, Type payloadType,
			boolean takesContext, int concurrency, int maxAttempts, boolean batchedCompletion, Set<String> topics) {
		this(queue, beanName, bean, method, payloadType, takesContext, concurrency, maxAttempts, batchedCompletion,
				topics, "");
	}

	/** A handler that subscribes to no topic. */
	public TaskHandlerMethod(String queue, String beanName, Object bean, Method method, Type payloadType,
			boolean takesContext, int concurrency, int maxAttempts, boolean batchedCompletion) {
		this(queue, beanName, bean, method, payloadType, takesContext, concurrency, maxAttempts, batchedCompletion,
				Set.of());
	}

	/**
	 * Calls the handler; a {@code suspend fun} returns when its coroutine has completed. A value the handler returns
	 * (not {@code null}, not Kotlin's {@code Unit}) becomes the task's result ({@link TaskContext#result(Object)}).
	 * Whatever the handler throws is thrown as it is; a checked exception is wrapped in an
	 * {@link UndeclaredThrowableException} only if it is not an {@link Exception}.
	 */
	public void invoke(Object payload, TaskContext context) throws Exception {
		Object returned = call(payload, context);
		if (returned != null) {
			context.result(returned);
		}
	}

	private @Nullable Object call(Object payload, TaskContext context) throws Exception {
		if (this.suspending) {
			return this.takesContext ? SuspendingHandler.invoke(this.queue, this.method, this.bean, payload, context)
					: SuspendingHandler.invoke(this.queue, this.method, this.bean, payload);
		}
		try {
			return this.takesContext ? this.method.invoke(this.bean, payload, context)
					: this.method.invoke(this.bean, payload);
		}
		catch (InvocationTargetException ex) {
			Throwable target = ex.getTargetException();
			if (target instanceof Exception exception) {
				throw exception;
			}
			if (target instanceof Error error) {
				throw error;
			}
			throw new UndeclaredThrowableException(target);
		}
	}

	/** Names the method for messages: {@code bean 'emailTasks' method EmailTasks.send(WelcomeEmail)}. */
	public String describe() {
		return describe(this.beanName, this.method);
	}

	static String describe(String beanName, Method method) {
		StringBuilder params = new StringBuilder();
		for (Class<?> type : method.getParameterTypes()) {
			params.append((params.length() > 0) ? ", " : "").append(type.getSimpleName());
		}
		return "bean '" + beanName + "' method " + method.getDeclaringClass().getSimpleName() + "." + method.getName()
				+ "(" + params + ")";
	}

}
