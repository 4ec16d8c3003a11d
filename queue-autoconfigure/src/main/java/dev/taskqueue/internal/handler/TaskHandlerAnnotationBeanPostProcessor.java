package dev.taskqueue.internal.handler;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.taskqueue.QueueName;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.internal.support.StartupFailure;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link TaskHandler @TaskHandler} methods on beans as they are created, checks them and puts them in the
 * {@link TaskHandlerRegistry}. It only collects: it starts no threads and runs no SQL. A bad handler stops the
 * application with a message naming its bean and method. Autoconfigure makes it, and reads what it filled, through
 * {@link TaskHandlerRegistry}.
 */
class TaskHandlerAnnotationBeanPostProcessor
		implements BeanPostProcessor, EmbeddedValueResolverAware, SmartInitializingSingleton {

	private final TaskHandlerRegistry registry = new TaskHandlerRegistry();

	private @Nullable StringValueResolver valueResolver;

	/** The registry this processor fills. */
	TaskHandlerRegistry getRegistry() {
		return this.registry;
	}

	/**
	 * The filter that keeps beans with handler methods eager under lazy initialization, so that this processor sees
	 * them.
	 */
	static LazyInitializationExcludeFilter lazyInitializationExcludeFilter() {
		return new TaskHandlerLazyInitializationExcludeFilter();
	}

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.valueResolver = resolver;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Map<Method, TaskHandler> annotated = TaskHandlerMethods.find(AopProxyUtils.ultimateTargetClass(bean));
		annotated.forEach((method, annotation) -> {
			try {
				this.registry.register(handlerMethod(bean, beanName, method, annotation));
			}
			catch (IllegalStateException | IllegalArgumentException ex) {
				String message = (ex.getMessage() != null) ? ex.getMessage() : ex.toString();
				throw new BeanCreationException(beanName, message, new StartupFailure(message, action(ex), ex));
			}
		});
		return bean;
	}

	/** What to do: the registry refuses a handler after startup or a queue's second, the checks below a method. */
	private String action(RuntimeException ex) {
		if (this.registry.isFrozen()) {
			return "Make the bean a singleton created at startup: handlers are found only then.";
		}
		return (ex instanceof IllegalStateException)
				? "Keep one @TaskHandler method per queue: remove one of the two, or give it a queue of its own."
				: "Change the @TaskHandler method as said above. A handler is a public or package-private instance "
						+ "method of a bean that takes (P payload) or (P payload, TaskContext context).";
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.registry.freeze();
	}

	private TaskHandlerMethod handlerMethod(Object bean, String beanName, Method method, TaskHandler annotation) {
		String where = "@TaskHandler on " + TaskHandlerMethod.describe(beanName, method);
		if (Modifier.isStatic(method.getModifiers())) {
			throw new IllegalArgumentException(where + " is static; a handler is an instance method of a bean");
		}
		if (Modifier.isPrivate(method.getModifiers())) {
			throw new IllegalArgumentException(where + " is private; make it public or package-private");
		}
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		ClassLoader classLoader = method.getDeclaringClass().getClassLoader();
		if (suspending && !ClassUtils.isPresent("kotlinx.coroutines.BuildersKt", classLoader)) {
			throw new IllegalArgumentException(where + " is a Kotlin suspend function, which TaskQueue runs with "
					+ "kotlinx-coroutines; add org.jetbrains.kotlinx:kotlinx-coroutines-core to the application");
		}
		Class<?>[] declared = method.getParameterTypes();
		Class<?>[] parameters = suspending ? Arrays.copyOf(declared, declared.length - 1) : declared;
		boolean takesContext = parameters.length == 2 && parameters[1] == TaskContext.class;
		if (!(parameters.length == 1 || takesContext) || parameters[0] == TaskContext.class) {
			throw new IllegalArgumentException(where + " has a bad signature; a handler takes (P payload) or "
					+ "(P payload, TaskContext context)" + (suspending ? ", and may be a suspend fun" : ""));
		}
		String queue = resolve(annotation.queue(), "queue", where);
		if (!QueueName.isValid(queue)) {
			throw new IllegalArgumentException(where + " names an invalid queue: "
					+ ((queue != null) ? "'" + queue + "'" : "null")
					+ "; a queue name is 1 to 100 letters, digits, '.', '_', '-' or ':'");
		}
		if (annotation.concurrency() < 0 || annotation.maxAttempts() < 0) {
			throw new IllegalArgumentException(where + " sets a negative concurrency or maxAttempts");
		}
		Method invocable;
		try {
			invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		}
		catch (IllegalStateException ex) {
			throw new IllegalArgumentException(where + " is not declared on an interface of the bean's JDK proxy ("
					+ Arrays.stream(AopProxyUtils.proxiedUserInterfaces(bean))
						.map(Class::getSimpleName)
						.collect(Collectors.joining(", "))
					+ "); declare it there or proxy the bean's class");
		}
		ReflectionUtils.makeAccessible(invocable);
		return new TaskHandlerMethod(queue, beanName, bean, invocable, method.getGenericParameterTypes()[0],
				takesContext, annotation.concurrency(), annotation.maxAttempts(),
				annotation.completion() == TaskHandler.Completion.BATCHED, topics(annotation, where),
				annotation.retryPolicy(), suspending);
	}

	private Set<String> topics(TaskHandler annotation, String where) {
		Set<String> topics = new LinkedHashSet<>();
		for (String topic : annotation.topics()) {
			String resolved = resolve(topic, "topic", where);
			if (!QueueName.isValid(resolved)) {
				throw new IllegalArgumentException(where + " names an invalid topic: "
						+ ((resolved != null) ? "'" + resolved + "'" : "null")
						+ "; a topic name is 1 to 100 letters, digits, '.', '_', '-' or ':'");
			}
			topics.add(resolved);
		}
		return topics;
	}

	private @Nullable String resolve(String queue, String what, String where) {
		if (this.valueResolver == null) {
			return queue;
		}
		try {
			return this.valueResolver.resolveStringValue(queue);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(where + " names " + what + " '" + queue + "', which cannot be resolved: "
					+ ex.getMessage());
		}
	}

}
