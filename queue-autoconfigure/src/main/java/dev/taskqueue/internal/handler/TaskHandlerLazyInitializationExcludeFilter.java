package dev.taskqueue.internal.handler;

import dev.taskqueue.TaskHandler;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.LazyInitializationExcludeFilter;

/**
 * Keeps beans with {@link TaskHandler @TaskHandler} methods eager when the application turns on lazy
 * initialization; a handler bean that is never created would never be found.
 */
final class TaskHandlerLazyInitializationExcludeFilter implements LazyInitializationExcludeFilter {

	@Override
	public boolean isExcluded(String beanName, BeanDefinition beanDefinition, Class<?> beanType) {
		return !TaskHandlerMethods.find(beanType).isEmpty();
	}

}
