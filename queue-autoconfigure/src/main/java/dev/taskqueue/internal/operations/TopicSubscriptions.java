package dev.taskqueue.internal.operations;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.jdbc.TopicRepository;
import dev.taskqueue.internal.support.DatabaseFailures;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.transaction.support.TransactionOperations;

/**
 * Stores the topics of this application's {@code @TaskHandler} methods once every bean exists, so that a publish
 * reaches their queues whether or not an instance of this application runs at that moment.
 * <p>
 * The handler of a queue owns the queue's subscriptions: a topic that its annotation no longer names is removed when
 * an instance with the handler starts. Queues this application has no handler for are never touched, so an
 * application without the handler (a producer, another service) cannot unsubscribe a queue by mistake.
 */
class TopicSubscriptions implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(TopicSubscriptions.class);

	private final TaskHandlerRegistry registry;

	private final TopicRepository topics;

	private final TransactionOperations transactions;

	TopicSubscriptions(TaskHandlerRegistry registry, TopicRepository topics,
			TransactionOperations transactions) {
		this.registry = registry;
		this.topics = topics;
		this.transactions = transactions;
	}

	@Override
	public void afterSingletonsInstantiated() {
		declare();
	}

	/** Stores the subscriptions of this application's handlers and removes those they dropped. */
	void declare() {
		Map<String, Set<String>> topicsByQueue = new LinkedHashMap<>();
		for (TaskHandlerMethod handler : this.registry.all()) {
			topicsByQueue.put(handler.queue(), handler.topics());
		}
		if (topicsByQueue.isEmpty()) {
			return;
		}
		List<String> removed;
		try {
			removed = this.transactions.execute((status) -> this.topics.declare(topicsByQueue.keySet(), topicsByQueue));
		}
		catch (RuntimeException ex) {
			// With taskqueue.schema.migrate=false, TaskQueue's first statement at startup.
			throw DatabaseFailures.atStartup(ex, "store its topic subscriptions");
		}
		if (removed != null && !removed.isEmpty()) {
			logger.info("Removed topic subscriptions that no @TaskHandler of this application declares any more: "
					+ String.join(", ", removed));
		}
	}

}
