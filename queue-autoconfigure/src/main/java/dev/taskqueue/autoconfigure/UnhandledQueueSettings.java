package dev.taskqueue.autoconfigure;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Says, in one line once every handler is known, which queues have settings under {@code taskqueue.queues} but no
 * {@code @TaskHandler} in this application: most often a misspelt queue name, whose settings would otherwise be
 * ignored without a word. A WARN when this application runs handlers; an INFO when it runs none (the worker is off,
 * or there are no handlers), since an application that only enqueues may share its configuration with the ones
 * that handle the tasks.
 */
final class UnhandledQueueSettings implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(UnhandledQueueSettings.class);

	/** {@code buckets} is the one setting an application that only enqueues reads too. */
	private static final String BUCKETS = " (but for buckets, which also place the tasks enqueued here)";

	private final TaskQueueProperties properties;

	private final TaskHandlerRegistry registry;

	UnhandledQueueSettings(TaskQueueProperties properties, TaskHandlerRegistry registry) {
		this.properties = properties;
		this.registry = registry;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Set<String> handled = this.registry.all().stream().map(TaskHandlerMethod::queue).collect(Collectors.toSet());
		List<String> unhandled = this.properties.getQueues()
			.keySet()
			.stream()
			.filter((queue) -> !handled.contains(queue))
			.toList();
		if (unhandled.isEmpty()) {
			return;
		}
		if (handled.isEmpty() || !this.properties.getWorker().isEnabled()) {
			logger.info("taskqueue.queues has settings for queue(s) " + unhandled + "; this application runs no "
					+ "handlers, so they apply only to the applications that handle those queues" + BUCKETS);
		}
		else {
			logger.warn("taskqueue.queues has settings for queue(s) " + unhandled + " but no @TaskHandler in this "
					+ "application handles them (it handles " + handled.stream().sorted().toList() + "); their "
					+ "settings apply only where those queues have handlers" + BUCKETS + ". A misspelt queue name?");
		}
	}

}
