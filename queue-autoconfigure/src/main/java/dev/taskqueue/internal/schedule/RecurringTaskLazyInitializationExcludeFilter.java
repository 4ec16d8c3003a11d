package dev.taskqueue.internal.schedule;

import dev.taskqueue.RecurringTask;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Keeps beans with {@link RecurringTask @RecurringTask} methods eager when the application turns on lazy
 * initialization; a schedule whose bean is never created would never tick.
 */
class RecurringTaskLazyInitializationExcludeFilter implements LazyInitializationExcludeFilter {

	@Override
	public boolean isExcluded(String beanName, BeanDefinition beanDefinition, Class<?> beanType) {
		return !MethodIntrospector
			.selectMethods(beanType,
					(MethodIntrospector.MetadataLookup<RecurringTask>) (method) -> AnnotatedElementUtils
						.findMergedAnnotation(method, RecurringTask.class))
			.isEmpty();
	}

}
