package dev.taskqueue.internal.jdbc;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * Topic subscriptions and publishing: which queues a topic reaches, and the one statement that enqueues a task on
 * each of them. Statements join the current Spring-managed transaction.
 */
public class TopicRepository {

	// One task per subscribed queue, in one statement. The ids derive from one time-ordered id made by the caller:
	// its last two bytes (random ones, version and variant bits untouched) become the subscriber's number, so the
	// ids stay unique and in creation order without a sequence. Each task's bucket is computed here (%4$s, see
	// TaskBuckets), as only this statement knows the subscribed queues; their ids share the bytes the hash reads.
	private static final String PUBLISH = """
			WITH subscriber AS (
			    SELECT queue, CAST(encode(substring(uuid_send(CAST(:base AS uuid)) FROM 1 FOR 14)
			                              || substring(int4send(CAST(n AS int)) FROM 3 FOR 2), 'hex') AS uuid) AS id
			    FROM (SELECT queue, row_number() OVER (ORDER BY queue) AS n FROM %2$s WHERE topic = :topic) s),
			published AS (
			    INSERT INTO %1$s (id, queue, payload, priority, headers, bucket)
			    SELECT id, queue, CAST(:payload AS jsonb), :priority, CAST(:headers AS jsonb), %4$s
			    FROM subscriber
			    RETURNING id, queue)
			SELECT id, queue%3$s FROM published ORDER BY queue
			""";

	private static final String SUBSCRIBE = """
			INSERT INTO %1$s (topic, queue) SELECT * FROM unnest(:topics, :queues)
			ON CONFLICT (topic, queue) DO NOTHING
			""";

	// A queue's handler owns the queue's subscriptions: rows of the queues declared here that it no longer names go.
	private static final String UNSUBSCRIBE_STALE = """
			DELETE FROM %1$s s WHERE s.queue = ANY(:handled)
			  AND NOT EXISTS (SELECT 1 FROM unnest(:topics, :queues) AS d(topic, queue)
			                  WHERE d.topic = s.topic AND d.queue = s.queue)
			RETURNING topic, queue
			""";

	private static final String SUBSCRIBERS = """
			SELECT queue FROM %1$s WHERE topic = :topic ORDER BY queue
			""";

	private final JdbcClient jdbc;

	private final @Nullable String notifyChannel;

	private final String publish;

	private final TaskBuckets buckets;

	private final String subscribe;

	private final String unsubscribeStale;

	private final String subscribers;

	/**
	 * @param notifyChannel the channel a publish sends each queue on with {@code NOTIFY}, or {@code null}
	 */
	public TopicRepository(DataSource dataSource, TaskTables tables, @Nullable String notifyChannel) {
		this(dataSource, tables, notifyChannel, TaskBuckets.NONE);
	}

	/**
	 * @param notifyChannel the channel a publish sends each queue on with {@code NOTIFY}, or {@code null}
	 * @param buckets the bucket count of each queue, which decides the bucket of a new task
	 */
	public TopicRepository(DataSource dataSource, TaskTables tables, @Nullable String notifyChannel,
			TaskBuckets buckets) {
		this.jdbc = JdbcClient.create(dataSource);
		this.notifyChannel = notifyChannel;
		this.buckets = buckets;
		this.publish = PUBLISH.formatted(tables.task(), tables.topicSubscription(),
				(notifyChannel != null) ? ", pg_notify(:channel, queue)" : "",
				TaskBuckets.SQL.formatted("subscriber.id", "subscriber.queue"));
		this.subscribe = SUBSCRIBE.formatted(tables.topicSubscription());
		this.unsubscribeStale = UNSUBSCRIBE_STALE.formatted(tables.topicSubscription());
		this.subscribers = SUBSCRIBERS.formatted(tables.topicSubscription());
	}

	/**
	 * Enqueues {@code task}'s payload, priority and headers on every queue subscribed to {@code topic}.
	 * @param task the task as it would be enqueued; its id seeds the ids of the tasks, its queue is ignored
	 * @return the id of the task enqueued on each subscribed queue, by queue name
	 */
	public Map<String, UUID> publish(String topic, NewTask task) {
		JdbcClient.StatementSpec statement = this.buckets.bind(this.jdbc.sql(this.publish))
			.param("topic", topic)
			.param("base", task.id())
			.param("payload", task.payload())
			.param("priority", task.priority())
			.param("headers", task.headers());
		if (this.notifyChannel != null) {
			statement = statement.param("channel", this.notifyChannel);
		}
		Map<String, UUID> tasks = new LinkedHashMap<>();
		statement.query((rs) -> {
			tasks.put(rs.getString("queue"), rs.getObject("id", UUID.class));
		});
		return tasks;
	}

	/**
	 * Stores the topics of the {@code handled} queues: adds the pairs of {@code topicsByQueue} and removes the
	 * other subscriptions of those queues. Subscriptions of queues not in {@code handled} are left alone.
	 * @return the subscriptions removed, as {@code topic -> queue} strings
	 */
	public List<String> declare(Collection<String> handled, Map<String, Set<String>> topicsByQueue) {
		List<String> topics = new ArrayList<>();
		List<String> queues = new ArrayList<>();
		topicsByQueue.forEach((queue, queueTopics) -> queueTopics.forEach((topic) -> {
			topics.add(topic);
			queues.add(queue);
		}));
		SqlArrayValue topicArray = new SqlArrayValue("text", topics.toArray());
		SqlArrayValue queueArray = new SqlArrayValue("text", queues.toArray());
		List<String> removed = this.jdbc.sql(this.unsubscribeStale)
			.param("handled", new SqlArrayValue("text", handled.toArray()))
			.param("topics", topicArray)
			.param("queues", queueArray)
			.query((rs, row) -> rs.getString("topic") + " -> " + rs.getString("queue"))
			.list();
		if (!topics.isEmpty()) {
			this.jdbc.sql(this.subscribe).param("topics", topicArray).param("queues", queueArray).update();
		}
		return removed;
	}

	/** The queues subscribed to {@code topic}, by name. */
	public List<String> subscribers(String topic) {
		return this.jdbc.sql(this.subscribers).param("topic", topic).query(String.class).list();
	}

}
