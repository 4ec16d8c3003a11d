package dev.taskqueue.internal.schedule;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.TaskContext;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.support.StartupFailure;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link RecurringTask @RecurringTask} methods on beans as they are created, checks them, keeps their
 * schedules, and registers each method as the handler of its schedule's queue. It only collects: no threads, no
 * SQL. A bad declaration stops the application with a message naming its bean and method.
 */
class RecurringTaskAnnotationBeanPostProcessor
		implements BeanPostProcessor, EmbeddedValueResolverAware, BeanFactoryAware {

	private final List<Schedule> schedules = new ArrayList<>();

	private @Nullable StringValueResolver valueResolver;

	private @Nullable BeanFactory beanFactory;

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.valueResolver = resolver;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/** The schedules found so far, in the order they were found. */
	public synchronized List<Schedule> getSchedules() {
		return List.copyOf(this.schedules);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopProxyUtils.ultimateTargetClass(bean);
		Map<Method, RecurringTask> annotated = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<RecurringTask>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, RecurringTask.class));
		annotated.forEach((method, annotation) -> {
			try {
				register(bean, beanName, method, annotation);
			}
			catch (IllegalStateException | IllegalArgumentException ex) {
				throw failure(beanName, ex);
			}
		});
		return bean;
	}

	private synchronized void register(Object bean, String beanName, Method method, RecurringTask annotation) {
		Schedule schedule = declared(beanName, method, annotation, this::resolve);
		schedule.requireNameFreeIn(this.schedules);
		Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		ReflectionUtils.makeAccessible(invocable);
		handlers().register(new TaskHandlerMethod(schedule.queue(), beanName, new RecurringMethod(bean, invocable),
				RecurringMethod.RUN, Object.class, true, 0, 0, false));
		this.schedules.add(schedule);
	}

	/**
	 * The schedule {@code method} of bean {@code beanName} declares, checked; also used before any bean is created
	 * (ScheduleStartupCheck), so it needs the method only, not the bean.
	 * @param resolve resolves a placeholder in an attribute, given the value and where it is for messages
	 * @throws IllegalArgumentException naming the bean and method when the declaration is wrong
	 */
	static Schedule declared(String beanName, Method method, RecurringTask annotation,
			BiFunction<String, String, String> resolve) {
		String where = "@RecurringTask on bean '" + beanName + "' method " + method.getDeclaringClass().getSimpleName()
				+ "." + method.getName() + "()";
		if (Modifier.isStatic(method.getModifiers()) || Modifier.isPrivate(method.getModifiers())) {
			throw new IllegalArgumentException(where + " is static or private; make it an instance method, public "
					+ "or package-private");
		}
		if (KotlinDetector.isSuspendingFunction(method)) {
			throw new IllegalArgumentException(where + " is a Kotlin suspend function; a recurring task's method is a "
					+ "plain fun (a @TaskHandler may suspend: let the recurring task enqueue its work there)");
		}
		Class<?>[] parameters = method.getParameterTypes();
		if (parameters.length > 1 || (parameters.length == 1 && parameters[0] != TaskContext.class)) {
			throw new IllegalArgumentException(where + " takes " + parameters.length + " parameter(s); a recurring "
					+ "task takes none or one TaskContext");
		}
		String name = ScheduleParser.name(where, ScheduleParser.hasText(annotation.name())
				? resolve.apply(annotation.name(), where) : beanName + "." + method.getName());
		String queue = ScheduleParser.hasText(annotation.queue()) ? resolve.apply(annotation.queue(), where) : name;
		ScheduleParser.name(where + " queue", queue);
		ScheduleSpec spec = ScheduleParser.spec(where, resolve.apply(annotation.cron(), where),
				resolve.apply(annotation.zone(), where), resolve.apply(annotation.fixedRate(), where),
				resolve.apply(annotation.fixedDelay(), where));
		return new Schedule(name, queue, "{}", spec, annotation.missed(), annotation.overlap(), where);
	}

	/** What a bad declaration stops the application with. */
	static BeanCreationException failure(String beanName, RuntimeException ex) {
		String message = (ex.getMessage() != null) ? ex.getMessage() : ex.toString();
		return new BeanCreationException(beanName, message, new StartupFailure(message,
				"Change the @RecurringTask method or its schedule as said above; docs/recurring-tasks.md "
						+ "describes what a schedule may be.",
				ex));
	}

	private dev.taskqueue.internal.handler.TaskHandlerRegistry handlers() {
		if (this.beanFactory == null) {
			throw new IllegalStateException("No bean factory");
		}
		return dev.taskqueue.internal.handler.TaskHandlerRegistry.of(this.beanFactory);
	}

	private String resolve(String value, String where) {
		if (this.valueResolver == null || value.isEmpty()) {
			return value;
		}
		try {
			String resolved = this.valueResolver.resolveStringValue(value);
			return (resolved != null) ? resolved : "";
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(where + " has '" + value + "', which cannot be resolved: "
					+ ex.getMessage(), ex);
		}
	}

}
