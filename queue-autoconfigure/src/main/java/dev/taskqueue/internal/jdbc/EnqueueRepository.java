package dev.taskqueue.internal.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.EnqueueResult;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * Inserts new tasks, one or many in one statement, and with them sends the wake-up of listening workers when
 * {@code NOTIFY} is enabled. Tasks with a unique key go through the statements of {@link UniqueEnqueues}, those
 * with an ordering key through those of {@link OrderedKeys}; the others keep the plain inserts here.
 * <p>
 * Statements run on the application's {@link DataSource} and join the current Spring-managed transaction, so a
 * task is enqueued exactly when the caller's transaction commits.
 */
public class EnqueueRepository {

	// enqueue's insert, on plain JDBC like the worker's hot statements (see HotStatements): one call per task.
	// Parameters: 1 id, 2 queue, 3 payload, 4 priority, 5 runAtMicros, 6 delayMicros, 7 headers, 8 bucket.
	// %2$s and %3$s add the fairness key's column and parameter (9) to the insert of a task with one.
	private static final String INSERT = """
			INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket%2$s)
			VALUES (?, ?, CAST(? AS jsonb), ?,
			        COALESCE(timestamptz 'epoch' + ? * interval '1 microsecond', now() + ? * interval '1 microsecond'),
			        CAST(? AS jsonb), ?%3$s)
			""";

	// INSERT with its wake-up. Parameters: INSERT's, then the channel and the queue.
	private static final String INSERT_NOTIFYING = """
			WITH inserted AS (%1$s)
			SELECT pg_notify(?, ?)
			""";

	// enqueueAll's insert, one row per element of the arrays. It comes in four shapes (see insertAllSql): tasks that
	// are all due now need no due-time arrays, and headers that are the same for every task (always so for
	// enqueueAll, whose observation they come from) are one value rather than an array.
	// %6$s and %7$s add the fairness keys' column and array to the insert of tasks with one (insertFair).
	private static final String INSERT_ALL = """
			INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket%6$s)
			SELECT t.id, t.queue, CAST(t.payload AS jsonb), t.priority, %2$s, CAST(%3$s AS jsonb), t.bucket%7$s
			FROM unnest(:ids, :queues, :payloads, :priorities, :buckets%4$s)
			    AS t(id, queue, payload, priority, bucket%5$s)
			""";

	private static final String SCHEDULED_RUN_AT = """
			COALESCE(timestamptz 'epoch' + t.run_at_micros * interval '1 microsecond',
			                now() + t.delay_micros * interval '1 microsecond')""";

	// The wake-up rides on the enqueue's own statement: no round trip of its own. PostgreSQL delivers it on
	// commit, once per channel and queue however many statements of the transaction sent it.
	private static final String NOTIFYING = """
			WITH inserted AS (%1$s)
			SELECT pg_notify(:channel, queue) FROM %2$s
			""";

	private final JdbcClient jdbc;

	private final HotStatements statements;

	private final @Nullable String notifyChannel;

	private final String insert;

	/** The insert of a task with a fairness key: {@link #insert} with the key's column. */
	private final String insertFair;

	/** Why this database refuses tasks with a fairness key, or {@code null} when it takes them. */
	private @Nullable String fairnessRefused;

	private final TaskBuckets buckets;

	private final UniqueEnqueues unique;

	private final OrderedKeys ordered;

	/**
	 * The shapes of the {@code enqueueAll} insert: [scheduled ? 1 : 0][shared headers ? 1 : 0][fairness keys ? 1 : 0].
	 */
	private final String[][][] insertAll = new String[2][2][2];

	/**
	 * @param dataSource the application's data source
	 * @param tables the table names
	 */
	public EnqueueRepository(DataSource dataSource, TaskTables tables) {
		this(dataSource, tables, null);
	}

	/**
	 * @param dataSource the application's data source
	 * @param tables the table names
	 * @param notifyChannel the channel every enqueue sends its queue on with {@code NOTIFY}, or {@code null}
	 */
	public EnqueueRepository(DataSource dataSource, TaskTables tables, @Nullable String notifyChannel) {
		this(dataSource, tables, notifyChannel, TaskBuckets.NONE);
	}

	/**
	 * @param dataSource the application's data source
	 * @param tables the table names
	 * @param notifyChannel the channel every enqueue sends its queue on with {@code NOTIFY}, or {@code null}
	 * @param buckets the bucket count of each queue, which decides the bucket of a new task
	 */
	public EnqueueRepository(DataSource dataSource, TaskTables tables, @Nullable String notifyChannel,
			TaskBuckets buckets) {
		this.buckets = buckets;
		JdbcTemplate jdbcTemplate = new JdbcTemplate(dataSource);
		this.jdbc = JdbcClient.create(jdbcTemplate);
		this.statements = new HotStatements(dataSource, jdbcTemplate.getExceptionTranslator());
		this.notifyChannel = notifyChannel;
		String insert = INSERT.formatted(tables.task(), "", "").stripTrailing();
		this.insert = (notifyChannel != null) ? INSERT_NOTIFYING.formatted(insert) : insert;
		String insertFair = INSERT.formatted(tables.task(), ", fairness_key", ", ?").stripTrailing();
		this.insertFair = (notifyChannel != null) ? INSERT_NOTIFYING.formatted(insertFair) : insertFair;
		this.unique = new UniqueEnqueues(this.statements, this.jdbc, tables, notifyChannel, buckets);
		this.ordered = new OrderedKeys(this.jdbc, tables, notifyChannel, buckets);
		for (int scheduled = 0; scheduled < 2; scheduled++) {
			for (int shared = 0; shared < 2; shared++) {
				for (int fair = 0; fair < 2; fair++) {
					String sql = insertAllSql(tables, scheduled == 1, shared == 1, fair == 1);
					this.insertAll[scheduled][shared][fair] = (notifyChannel != null)
							? NOTIFYING.formatted(sql, "(SELECT DISTINCT unnest(:queues)) AS q(queue)") : sql;
				}
			}
		}
	}

	/**
	 * Refuses tasks with a fairness key, before any SQL, saying {@code why}: on a database whose workers do not claim
	 * them fairly (CockroachDB, docs/fairness.md).
	 */
	public EnqueueRepository refusingFairnessKeys(String why) {
		this.fairnessRefused = why;
		return this;
	}

	/**
	 * Inserts {@code task}, or, when it has a unique key that a task holds, does what its mode says.
	 * @return the id it ended up with and whether it was a duplicate
	 */
	public EnqueueResult offer(NewTask task) {
		if (task.uniqueKey() != null) {
			return this.unique.offer(task);
		}
		if (task.orderingKey() != null) {
			return this.ordered.offer(task);
		}
		requireFairnessTaken(task);
		insert(task);
		return new EnqueueResult(task.id(), false);
	}

	/**
	 * Inserts {@code tasks} with one statement, deduplicating those with unique keys among themselves and against
	 * the table. One unique key of a queue must come with one mode throughout {@code tasks}.
	 * @return for each task the id it ended up with and whether it was a duplicate
	 */
	public List<EnqueueResult> offerAll(List<NewTask> tasks) {
		if (tasks.stream().anyMatch((task) -> task.orderingKey() != null)) {
			return offerAllOrdered(tasks);
		}
		if (tasks.stream().anyMatch((task) -> task.uniqueKey() != null)) {
			return this.unique.offerAll(tasks);
		}
		tasks.forEach(this::requireFairnessTaken);
		insertAll(tasks);
		return tasks.stream().map((task) -> new EnqueueResult(task.id(), false)).toList();
	}

	/** The tasks with an ordering key with one statement, the others with theirs; results in the list's order. */
	private List<EnqueueResult> offerAllOrdered(List<NewTask> tasks) {
		List<NewTask> ordered = tasks.stream().filter((task) -> task.orderingKey() != null).toList();
		List<NewTask> others = tasks.stream().filter((task) -> task.orderingKey() == null).toList();
		Map<UUID, EnqueueResult> results = new HashMap<>();
		this.ordered.offerAll(ordered).forEach((result) -> results.put(result.id(), result));
		List<EnqueueResult> otherResults = others.isEmpty() ? List.of() : offerAll(others);
		for (int i = 0; i < others.size(); i++) {
			results.put(others.get(i).id(), otherResults.get(i));
		}
		return tasks.stream().map((task) -> results.get(task.id())).toList();
	}

	public void insert(NewTask task) {
		boolean fair = task.fairnessKey() != null;
		this.statements.execute(fair ? this.insertFair : this.insert, (statement, connection) -> {
			TaskRows.bind(statement, 1, task, this.buckets);
			int next = 9;
			if (fair) {
				statement.setString(next++, task.fairnessKey());
			}
			if (this.notifyChannel != null) {
				statement.setString(next, this.notifyChannel);
				// A task with a key names it: a worker may claim it from its listening thread (docs/fairness.md).
				statement.setString(next + 1,
						fair ? TaskNotifications.keyedPayload(task.queue(), task.fairnessKey()) : task.queue());
			}
		});
	}

	private void requireFairnessTaken(NewTask task) {
		if (task.fairnessKey() != null && this.fairnessRefused != null) {
			throw new IllegalArgumentException("The task of queue '" + task.queue() + "' has fairness key '"
					+ task.fairnessKey() + "', which " + this.fairnessRefused);
		}
	}

	public void insertAll(List<NewTask> tasks) {
		if (tasks.isEmpty()) {
			return;
		}
		TaskRows rows = new TaskRows(tasks, this.buckets);
		boolean scheduled = tasks.stream().anyMatch((task) -> task.runAt() != null || task.delay() != null);
		boolean sharedHeaders = Arrays.stream(rows.headers).allMatch(rows.headers[0]::equals);
		boolean fair = tasks.stream().anyMatch((task) -> task.fairnessKey() != null);
		JdbcClient.StatementSpec insert = this.jdbc
			.sql(this.insertAll[scheduled ? 1 : 0][sharedHeaders ? 1 : 0][fair ? 1 : 0])
			.param("ids", new SqlArrayValue("uuid", (Object[]) rows.ids))
			.param("queues", new SqlArrayValue("text", (Object[]) rows.queues))
			.param("payloads", new SqlArrayValue("text", (Object[]) rows.payloads))
			.param("priorities", new SqlArrayValue("int4", (Object[]) rows.priorities))
			.param("buckets", new SqlArrayValue("int2", (Object[]) rows.buckets))
			.param("headers", sharedHeaders ? rows.headers[0] : new SqlArrayValue("text", (Object[]) rows.headers));
		if (scheduled) {
			insert = insert.param("runAtMicros", new SqlArrayValue("int8", (Object[]) rows.runAtMicros))
				.param("delayMicros", new SqlArrayValue("int8", (Object[]) rows.delayMicros));
		}
		if (fair) {
			insert = insert.param("fairnessKeys",
					new SqlArrayValue("text", tasks.stream().map(NewTask::fairnessKey).toArray()));
		}
		execute(insert);
	}

	private static String insertAllSql(TaskTables tables, boolean scheduled, boolean sharedHeaders, boolean fair) {
		return INSERT_ALL.formatted(tables.task(), scheduled ? SCHEDULED_RUN_AT : "now()",
				sharedHeaders ? ":headers" : "t.headers",
				(scheduled ? ", :runAtMicros, :delayMicros" : "") + (sharedHeaders ? "" : ", :headers")
						+ (fair ? ", :fairnessKeys" : ""),
				(scheduled ? ", run_at_micros, delay_micros" : "") + (sharedHeaders ? "" : ", headers")
						+ (fair ? ", fairness_key" : ""),
				fair ? ", fairness_key" : "", fair ? ", t.fairness_key" : "");
	}

	/** Runs an enqueue statement, which returns the rows of its {@code NOTIFY} when it sends one. */
	private void execute(JdbcClient.StatementSpec enqueue) {
		if (this.notifyChannel != null) {
			enqueue.param("channel", this.notifyChannel).query((rs, row) -> null).list();
		}
		else {
			enqueue.update();
		}
	}

	/**
	 * A task to insert, the input of every enqueue here and of the topics', batches' and dependencies' repositories.
	 * When to run it is either a delay after the enqueue on the database clock, or a fixed time, or neither (now).
	 *
	 * @param id the task's id
	 * @param queue its queue
	 * @param payload its JSON payload
	 * @param priority its priority
	 * @param delay the delay after the enqueue, or {@code null}
	 * @param runAt the time to run, or {@code null}
	 * @param headers its headers as a JSON object of strings, {@code "{}"} when it has none
	 * @param uniqueKey its unique key in its queue, or {@code null}
	 * @param replace whether it replaces a task with its unique key that has not started (REPLACE) rather than give
	 * way to any task with it (KEEP)
	 * @param orderingKey its ordering key in its queue, or {@code null}
	 * @param fairnessKey its fairness key in its queue (docs/fairness.md), or {@code null}
	 */
	public record NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
			@Nullable Instant runAt, String headers, @Nullable String uniqueKey, boolean replace,
			@Nullable String orderingKey, @Nullable String fairnessKey) {

		/** A task without a fairness key. */
		public NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
				@Nullable Instant runAt, String headers, @Nullable String uniqueKey, boolean replace,
				@Nullable String orderingKey) {
			this(id, queue, payload, priority, delay, runAt, headers, uniqueKey, replace, orderingKey, null);
		}

		/** A task without an ordering key. */
		public NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
				@Nullable Instant runAt, String headers, @Nullable String uniqueKey, boolean replace) {
			this(id, queue, payload, priority, delay, runAt, headers, uniqueKey, replace, null);
		}

		/** A task without a unique key. */
		public NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
				@Nullable Instant runAt, String headers) {
			this(id, queue, payload, priority, delay, runAt, headers, null, false);
		}

		/** A task without headers or unique key. */
		public NewTask(UUID id, String queue, String payload, int priority, @Nullable Duration delay,
				@Nullable Instant runAt) {
			this(id, queue, payload, priority, delay, runAt, "{}");
		}

		/** This task with other headers. */
		public NewTask withHeaders(String headers) {
			return new NewTask(this.id, this.queue, this.payload, this.priority, this.delay, this.runAt, headers,
					this.uniqueKey, this.replace, this.orderingKey, this.fairnessKey);
		}

	}

}
