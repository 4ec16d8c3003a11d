package dev.taskqueue.benchmark;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.taskqueue.autoconfigure.QueueProperties;
import dev.taskqueue.autoconfigure.TaskQueueProperties;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The properties given to TaskQueue instances, read the way the library reads them: a queue's concurrency, and
 * where the tables are.
 */
final class LibraryProperties {

	static final String POOL_SIZE = "spring.datasource.hikari.maximum-pool-size";

	static final String CONCURRENCY = "taskqueue.worker.concurrency";

	/** The benchmark's concurrency unless given: the issue's, and more than the library's default of 4. */
	static final int DEFAULT_CONCURRENCY = 8;

	/**
	 * Connections beyond one per handler when the pool size is not given (12 at the default concurrency): as many
	 * as the worker keeps for itself (claiming, heartbeats, LISTEN, batched completions), so that the pool never
	 * limits the handlers.
	 */
	private static final int SPARE_CONNECTIONS = 4;

	private final Map<String, String> properties;

	private final Binder binder;

	private final TaskQueueProperties bound;

	LibraryProperties(Map<String, String> properties) {
		Map<String, String> all = new LinkedHashMap<>(properties);
		all.putIfAbsent(CONCURRENCY, String.valueOf(DEFAULT_CONCURRENCY));
		this.properties = Map.copyOf(all);
		this.binder = new Binder(new MapConfigurationPropertySource(all));
		this.bound = this.binder.bind("taskqueue", TaskQueueProperties.class).orElseGet(TaskQueueProperties::new);
	}

	/** These properties with {@code name} set to {@code value}. */
	LibraryProperties with(String name, String value) {
		Map<String, String> copy = new LinkedHashMap<>(this.properties);
		copy.put(name, value);
		return new LibraryProperties(copy);
	}

	Map<String, String> asMap() {
		return this.properties;
	}

	/** The queue's concurrency: its own setting, else {@code taskqueue.worker.concurrency}. */
	int concurrency(Mode mode) {
		QueueProperties queue = this.bound.getQueues().get(mode.queue());
		return (queue != null && queue.getConcurrency() != null) ? queue.getConcurrency()
				: this.bound.getWorker().getConcurrency();
	}

	/**
	 * The queue's group size: its own setting, else {@code taskqueue.worker.group-commit-size} when given, else
	 * for the grouped mode {@link GroupedNoopHandler#DEFAULT_GROUP_SIZE}.
	 */
	int groupSize(Mode mode) {
		QueueProperties queue = this.bound.getQueues().get(mode.queue());
		if (queue != null && queue.getGroupCommitSize() != null) {
			return queue.getGroupCommitSize();
		}
		if (this.properties.containsKey("taskqueue.worker.group-commit-size") || mode != Mode.GROUPED) {
			return this.bound.getWorker().getGroupCommitSize();
		}
		return GroupedNoopHandler.DEFAULT_GROUP_SIZE;
	}

	/**
	 * The pool size given, or enough for a worker that runs only {@code mode}'s queue never to wait for one; the
	 * db-scheduler contender gets a pool of the same size.
	 */
	int poolSize(Mode mode) {
		return this.binder.bind(POOL_SIZE, Integer.class).orElse(concurrency(mode) + SPARE_CONNECTIONS);
	}

	/** The task table's name, qualified with {@code taskqueue.schema.name} when that is set. */
	String taskTable() {
		String schema = this.bound.getSchema().getName();
		return (schema != null) ? schema + ".taskqueue_task" : "taskqueue_task";
	}

}
