package dev.taskqueue.internal.handler;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.LazyInitializationExcludeFilter;

/**
 * The handlers of this application, by queue. Filled while the application context starts, read-only after. This
 * package's entry point: autoconfigure makes the processor that fills it ({@link #annotationProcessor()}) and reads
 * the registry that processor filled ({@link #of(BeanFactory)}).
 */
public class TaskHandlerRegistry {

	/**
	 * The bean post-processor that finds {@code @TaskHandler} methods on beans as they are created, checks them and
	 * puts them in its registry.
	 */
	public static BeanPostProcessor annotationProcessor() {
		return new TaskHandlerAnnotationBeanPostProcessor();
	}

	/**
	 * The filter that keeps beans with handler methods eager under lazy initialization, so that the
	 * {@link #annotationProcessor() processor} sees them.
	 */
	public static LazyInitializationExcludeFilter lazyInitializationExcludeFilter() {
		return TaskHandlerAnnotationBeanPostProcessor.lazyInitializationExcludeFilter();
	}

	/** The registry that the {@link #annotationProcessor() processor} among {@code beans} fills. */
	public static TaskHandlerRegistry of(BeanFactory beans) {
		return beans.getBean(TaskHandlerAnnotationBeanPostProcessor.class).getRegistry();
	}

	private final Map<String, TaskHandlerMethod> handlers = new LinkedHashMap<>();

	private volatile boolean frozen;

	/**
	 * Adds a handler.
	 * @throws IllegalStateException if its queue has a handler already, naming both
	 */
	public synchronized void register(TaskHandlerMethod handler) {
		if (this.frozen) {
			throw new IllegalStateException("Cannot register " + handler.describe() + " after startup");
		}
		TaskHandlerMethod existing = this.handlers.putIfAbsent(handler.queue(), handler);
		if (existing != null) {
			throw new IllegalStateException("Queue '" + handler.queue() + "' has two @TaskHandler methods: "
					+ existing.describe() + " and " + handler.describe() + "; a queue has exactly one handler");
		}
	}

	synchronized void freeze() {
		this.frozen = true;
	}

	/** Whether startup is over, and with it registration. */
	boolean isFrozen() {
		return this.frozen;
	}

	/** The handler of {@code queue}, or {@code null} when this application has none. */
	public synchronized @Nullable TaskHandlerMethod get(String queue) {
		return this.handlers.get(queue);
	}

	/** All handlers, in the order they were found. */
	public synchronized Collection<TaskHandlerMethod> all() {
		return List.copyOf(this.handlers.values());
	}

}
