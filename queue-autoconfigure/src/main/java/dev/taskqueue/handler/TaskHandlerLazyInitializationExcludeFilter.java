package dev.taskqueue.handler;

import dev.taskqueue.TaskHandler;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Keeps beans with {@link TaskHandler @TaskHandler} methods eager when the application turns on lazy
 * initialization; a handler bean that is never created would never be found.
 */
public class TaskHandlerLazyInitializationExcludeFilter implements LazyInitializationExcludeFilter {

	@Override
	public boolean isExcluded(String beanName, BeanDefinition beanDefinition, Class<?> beanType) {
		if (!AnnotationUtils.isCandidateClass(beanType, TaskHandler.class)) {
			return false;
		}
		return !MethodIntrospector
			.selectMethods(beanType,
					(MethodIntrospector.MetadataLookup<TaskHandler>) (method) -> AnnotatedElementUtils
						.findMergedAnnotation(method, TaskHandler.class))
			.isEmpty();
	}

}
