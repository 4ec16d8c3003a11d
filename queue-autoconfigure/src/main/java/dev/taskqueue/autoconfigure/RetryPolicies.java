package dev.taskqueue.autoconfigure;

import dev.taskqueue.RetryPolicy;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.support.StartupFailure;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanNotOfRequiredTypeException;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;

/**
 * Finds each queue's {@link RetryPolicy}: the bean its {@code @TaskHandler(retryPolicy = ...)} names, else the bean
 * named {@value #DEFAULT_NAME}, TaskQueue's exponential backoff from {@code taskqueue.retry.backoff.*} unless the
 * application declares a bean of that name. Other {@code RetryPolicy} beans change nothing for a queue that does not
 * name them.
 */
final class RetryPolicies {

	/** The name of the default policy's bean. */
	static final String DEFAULT_NAME = "taskQueueRetryPolicy";

	private final BeanFactory beans;

	RetryPolicies(BeanFactory beans) {
		this.beans = beans;
	}

	/**
	 * The policy of {@code handler}'s queue.
	 * @throws StartupFailure if the handler names no {@code RetryPolicy} bean
	 */
	RetryPolicy of(TaskHandlerMethod handler) {
		String name = handler.retryPolicy();
		if (name.isEmpty()) {
			return this.beans.getBean(DEFAULT_NAME, RetryPolicy.class);
		}
		try {
			return this.beans.getBean(name, RetryPolicy.class);
		}
		catch (NoSuchBeanDefinitionException | BeanNotOfRequiredTypeException ex) {
			throw new StartupFailure(handler.describe() + " names retry policy '" + name + "' (@TaskHandler("
					+ "retryPolicy = ...)), but " + ((ex instanceof BeanNotOfRequiredTypeException)
							? "that bean is not a " + RetryPolicy.class.getName()
							: "the application has no bean of that name"),
					"Declare a bean named '" + name + "' of type " + RetryPolicy.class.getName()
							+ ", or name another in @TaskHandler(retryPolicy = ...).");
		}
	}

}
