package dev.taskqueue.internal.schedule;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.internal.schedule.RecurringTaskConfiguration.ScheduleSettings;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Checks every schedule, {@code @RecurringTask} methods and {@code taskqueue.schedules}, before any bean is
 * created, so that a bad one stops the application before TaskQueue migrates its tables (docs/checks.md). The
 * checks that run later, as beans are created, stay: they see what this cannot, such as a method found only on the
 * bean's runtime class.
 */
final class ScheduleStartupCheck implements BeanFactoryPostProcessor, EnvironmentAware, Ordered {

	private final Function<Environment, Map<String, ScheduleSettings>> configured;

	private @Nullable Environment environment;

	ScheduleStartupCheck(Function<Environment, Map<String, ScheduleSettings>> configured) {
		this.configured = configured;
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	/** Last, so that the placeholder configurer has registered its resolver. */
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		List<Schedule> annotated = new ArrayList<>();
		for (String beanName : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = typeOf(beanFactory, beanName);
			if (type == null) {
				continue;
			}
			Map<Method, RecurringTask> methods = MethodIntrospector.selectMethods(type,
					(MethodIntrospector.MetadataLookup<RecurringTask>) (method) -> AnnotatedElementUtils
						.findMergedAnnotation(method, RecurringTask.class));
			methods.forEach((method, annotation) -> {
				if (usesExpressions(annotation)) {
					return; // #{...} needs beans to evaluate: left to the bean post-processor's check, at its time
				}
				try {
					Schedule schedule = RecurringTaskAnnotationBeanPostProcessor.declared(beanName, method, annotation,
							(value, where) -> resolve(beanFactory, value, where));
					schedule.requireNameFreeIn(annotated);
					annotated.add(schedule);
				}
				catch (IllegalArgumentException | IllegalStateException ex) {
					throw RecurringTaskAnnotationBeanPostProcessor.failure(beanName, ex);
				}
			});
		}
		try {
			ConfiguredSchedules.merge(annotated, ConfiguredSchedules.of(configured(), new JsonMapper()));
		}
		catch (IllegalArgumentException ex) {
			throw ConfiguredSchedules.failure(ex);
		}
	}

	/** Whether an attribute of {@code annotation} is a SpEL expression, which only the bean factory's resolver reads. */
	private static boolean usesExpressions(RecurringTask annotation) {
		return AnnotationUtils.getAnnotationAttributes(annotation)
			.values()
			.stream()
			.anyMatch((value) -> value instanceof String text && text.contains("#{"));
	}

	/** The bean's class without creating anything, {@code null} when that cannot be told (then the later checks). */
	private static @Nullable Class<?> typeOf(ConfigurableListableBeanFactory beanFactory, String beanName) {
		if (ScopedProxyUtils.isScopedTarget(beanName) || beanFactory.getBeanDefinition(beanName).isAbstract()) {
			return null;
		}
		try {
			Class<?> type = beanFactory.getType(beanName, false);
			return (type != null) ? ClassUtils.getUserClass(type) : null;
		}
		catch (RuntimeException | LinkageError ex) {
			return null;
		}
	}

	/** {@code taskqueue.schedules}; none when it does not bind, which Spring Boot's binding reports itself. */
	private Map<String, ScheduleSettings> configured() {
		if (this.environment == null) {
			return Map.of();
		}
		try {
			return this.configured.apply(this.environment);
		}
		catch (RuntimeException ex) {
			return Map.of();
		}
	}

	private String resolve(ConfigurableListableBeanFactory beanFactory, String value, String where) {
		if (value.isEmpty()) {
			return value;
		}
		try {
			String resolved = beanFactory.hasEmbeddedValueResolver() ? beanFactory.resolveEmbeddedValue(value)
					: (this.environment != null) ? this.environment.resolveRequiredPlaceholders(value) : value;
			return (resolved != null) ? resolved : "";
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(where + " has '" + value + "', which cannot be resolved: "
					+ ex.getMessage(), ex);
		}
	}

}
