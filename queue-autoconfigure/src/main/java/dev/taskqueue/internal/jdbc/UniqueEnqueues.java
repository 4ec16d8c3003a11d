package dev.taskqueue.internal.jdbc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import dev.taskqueue.EnqueueResult;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The inserts of {@link EnqueueRepository} for tasks with a unique key; keyless tasks keep their own statements.
 * <p>
 * A keyed task is in two unique indexes (V3). {@code taskqueue_task_unique_waiting_idx} holds the keyed tasks that
 * have not started ({@code attempt = 0}), the ones REPLACE updates. The claim makes {@code attempt} 1 and so takes a
 * task out of it for good (nothing brings a keyed task back to 0), so REPLACE can add a task while one runs and no
 * worker statement can meet a conflict. {@code taskqueue_task_unique_running_idx} holds the tasks enqueued with KEEP
 * ({@code unique_running}) in every state, so a claim between a KEEP's check and its insert changes nothing.
 * <p>
 * Races. Two inserts of one key: the second waits in the index for the first's transaction; KEEP then inserts
 * nothing and finds the task with a new statement (see {@link #keep}), REPLACE updates it. A REPLACE and a claim:
 * DO UPDATE waits for the claim's lock; when the claim has changed the task, PostgreSQL tries the insert again and it
 * adds a task after the running one. The one window left (docs/unique-tasks.md): a KEEP does not see a task enqueued
 * with REPLACE that another transaction committed after the KEEP statement began and that a worker claimed before
 * the KEEP reached the index. Under REPEATABLE READ, PostgreSQL reports a conflict with a task the transaction
 * cannot see as a serialization failure.
 */
final class UniqueEnqueues {

	// Parameters: 1 queue, 2 key, 3 id, 4 queue, 5 payload, 6 priority, 7 runAtMicros, 8 delayMicros, 9 headers,
	// 10 bucket, 11 key, then 12 the channel when notifying. The task found in "existing" is any live task with the key (one
	// enqueued with REPLACE may be running); "inserted" is empty when the key was taken by a task committed after
	// this statement began: the caller runs it again.
	private static final String KEEP = """
			WITH existing AS MATERIALIZED (
			    SELECT id FROM %1$s WHERE queue = ? AND unique_key = ? ORDER BY id DESC LIMIT 1),
			inserted AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket, unique_key, unique_running)
			    SELECT ?, ?, CAST(? AS jsonb), ?,
			           COALESCE(timestamptz 'epoch' + ? * interval '1 microsecond',
			                    now() + ? * interval '1 microsecond'),
			           CAST(? AS jsonb), ?, ?, true
			    WHERE NOT EXISTS (SELECT 1 FROM existing)
			    ON CONFLICT DO NOTHING
			    RETURNING id, queue)%2$s
			SELECT id, false AS duplicate FROM inserted%3$s
			UNION ALL
			SELECT id, true FROM existing
			""";

	// The wake-up of KEEP, sent only when a task was added.
	private static final String KEEP_NOTIFIED = """
			,
			notified AS (SELECT count(*) AS n FROM (SELECT pg_notify(?, queue) FROM inserted) sent)""";

	// Parameters: 1 id, 2 queue, 3 payload, 4 priority, 5 runAtMicros, 6 delayMicros, 7 headers, 8 bucket, 9 key,
	// then 10 the channel when notifying. Returns the id of the task added or updated: a different id is a duplicate.
	private static final String REPLACE = """
			WITH upserted AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket, unique_key)
			    VALUES (?, ?, CAST(? AS jsonb), ?,
			            COALESCE(timestamptz 'epoch' + ? * interval '1 microsecond',
			                     now() + ? * interval '1 microsecond'),
			            CAST(? AS jsonb), ?, ?)
			    %2$s
			    RETURNING id, queue)
			SELECT id%3$s FROM upserted
			""";

	private static final String REPLACE_CONFLICT = """
			ON CONFLICT (queue, unique_key) WHERE unique_key IS NOT NULL AND attempt = 0
			    DO UPDATE SET payload = excluded.payload, priority = excluded.priority, run_at = excluded.run_at,
			                  headers = excluded.headers""";

	// enqueueAll with keys: KEEP and keyless rows in "kept", REPLACE rows in "replaced", each key at most once
	// (see offerAll), in the order of their keys: two lists that share keys then take them in the same order and
	// cannot deadlock waiting for each other's keys in the unique indexes. Returns each row's id and the id it ended up with, null where a KEEP row lost to a task
	// committed after the statement began.
	private static final String ALL = """
			WITH input AS MATERIALIZED (
			    SELECT * FROM unnest(:ids, :queues, :payloads, :priorities, :runAtMicros, :delayMicros, :headers,
			                         :buckets, :keys, :replacing)
			        AS i(id, queue, payload, priority, run_at_micros, delay_micros, headers, bucket, unique_key,
			             replacing)),
			existing AS MATERIALIZED (
			    SELECT i.id AS request, (SELECT t.id FROM %1$s t WHERE t.queue = i.queue AND t.unique_key = i.unique_key
			                             ORDER BY t.id DESC LIMIT 1) AS id
			    FROM input i WHERE i.unique_key IS NOT NULL AND NOT i.replacing),
			kept AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket, unique_key, unique_running)
			    SELECT i.id, i.queue, CAST(i.payload AS jsonb), i.priority, %2$s, CAST(i.headers AS jsonb), i.bucket,
			           i.unique_key, i.unique_key IS NOT NULL
			    FROM input i
			    WHERE NOT i.replacing AND NOT EXISTS (SELECT 1 FROM existing e WHERE e.request = i.id AND e.id IS NOT NULL)
			    ORDER BY i.queue, i.unique_key
			    ON CONFLICT DO NOTHING
			    RETURNING id, queue),
			replaced AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket, unique_key)
			    SELECT i.id, i.queue, CAST(i.payload AS jsonb), i.priority, %2$s, CAST(i.headers AS jsonb), i.bucket,
			           i.unique_key
			    FROM input i WHERE i.replacing
			    ORDER BY i.queue, i.unique_key
			    %3$s
			    RETURNING id, queue, unique_key)%4$s
			SELECT i.id AS request, COALESCE(k.id, e.id, r.id) AS id
			FROM input i%5$s
			LEFT JOIN kept k ON k.id = i.id
			LEFT JOIN existing e ON e.request = i.id
			LEFT JOIN replaced r ON i.replacing AND r.queue = i.queue AND r.unique_key = i.unique_key
			""";

	private static final String ALL_RUN_AT = """
			COALESCE(timestamptz 'epoch' + i.run_at_micros * interval '1 microsecond',
			                now() + i.delay_micros * interval '1 microsecond')""";

	private static final String ALL_NOTIFIED = """
			,
			notified AS (SELECT count(*) AS n FROM (SELECT pg_notify(:channel, q.queue)
			    FROM (SELECT queue FROM kept UNION SELECT queue FROM replaced) q) sent)""";

	// A KEEP loses to a task committed after its statement began at most once per such commit: in READ COMMITTED
	// the next statement sees that task. More rounds than this mean something else is wrong.
	private static final int ROUNDS = 100;

	private final HotStatements statements;

	private final JdbcClient jdbc;

	private final @Nullable String notifyChannel;

	private final String keep;

	private final String replace;

	private final String all;

	private final TaskBuckets buckets;

	UniqueEnqueues(HotStatements statements, JdbcClient jdbc, TaskTables tables, @Nullable String notifyChannel,
			TaskBuckets buckets) {
		this.statements = statements;
		this.buckets = buckets;
		this.jdbc = jdbc;
		this.notifyChannel = notifyChannel;
		boolean notifying = notifyChannel != null;
		this.keep = KEEP.formatted(tables.task(), notifying ? KEEP_NOTIFIED : "",
				notifying ? " CROSS JOIN notified" : "");
		this.replace = REPLACE.formatted(tables.task(), REPLACE_CONFLICT, notifying ? ", pg_notify(?, queue)" : "");
		this.all = ALL.formatted(tables.task(), ALL_RUN_AT, REPLACE_CONFLICT, notifying ? ALL_NOTIFIED : "",
				notifying ? " CROSS JOIN notified" : "");
	}

	EnqueueResult offer(NewTask task) {
		if (task.replace()) {
			UUID id = this.statements.query(this.replace, (statement, connection) -> {
				TaskRows.bind(statement, 1, task, this.buckets);
				statement.setString(9, task.uniqueKey());
				if (this.notifyChannel != null) {
					statement.setString(10, this.notifyChannel);
				}
			}, (rows) -> rows.next() ? rows.getObject(1, UUID.class) : null);
			// DO UPDATE returns the task inserted or updated: always one row.
			Objects.requireNonNull(id, "the upsert returned no task");
			return new EnqueueResult(id, !task.id().equals(id));
		}
		for (int round = 0; round < ROUNDS; round++) {
			EnqueueResult result = keep(task);
			if (result != null) {
				return result;
			}
		}
		throw new IllegalStateException("Could not enqueue with unique key '" + task.uniqueKey() + "' on queue '"
				+ task.queue() + "': the key stayed taken by tasks this transaction cannot see");
	}

	/** One KEEP statement: its result, or {@code null} when it has to run again. */
	private @Nullable EnqueueResult keep(NewTask task) {
		return this.statements.query(this.keep, (statement, connection) -> {
			statement.setString(1, task.queue());
			statement.setString(2, task.uniqueKey());
			TaskRows.bind(statement, 3, task, this.buckets);
			statement.setString(11, task.uniqueKey());
			if (this.notifyChannel != null) {
				statement.setString(12, this.notifyChannel);
			}
		}, (rows) -> rows.next() ? new EnqueueResult(rows.getObject(1, UUID.class), rows.getBoolean(2)) : null);
	}


	/**
	 * Enqueues {@code tasks}, some with a unique key, as if one after the other: the requests of one key become one
	 * row (the first's id; with REPLACE the last one's payload, priority, due time and headers), so that no
	 * statement meets a key twice. One key must come with one mode throughout.
	 */
	List<EnqueueResult> offerAll(List<NewTask> tasks) {
		List<NewTask> rows = new ArrayList<>();
		int[] rowOf = new int[tasks.size()];
		boolean[] first = new boolean[tasks.size()];
		Map<List<String>, Integer> rowOfKey = new HashMap<>();
		for (int i = 0; i < tasks.size(); i++) {
			NewTask task = tasks.get(i);
			Integer row = (task.uniqueKey() != null) ? rowOfKey.get(List.of(task.queue(), task.uniqueKey())) : null;
			if (row == null) {
				if (task.uniqueKey() != null) {
					rowOfKey.put(List.of(task.queue(), task.uniqueKey()), rows.size());
				}
				rowOf[i] = rows.size();
				first[i] = true;
				rows.add(task);
			}
			else {
				rowOf[i] = row;
				if (task.replace()) {
					rows.set(row, new NewTask(rows.get(row).id(), task.queue(), task.payload(), task.priority(),
							task.delay(), task.runAt(), task.headers(), task.uniqueKey(), true));
				}
			}
		}
		Map<UUID, UUID> ended = new HashMap<>();
		List<NewTask> pending = rows;
		for (int round = 0; !pending.isEmpty(); round++) {
			if (round == ROUNDS) {
				throw new IllegalStateException("Could not enqueue " + pending.size() + " tasks with unique keys: "
						+ "their keys stayed taken by tasks this transaction cannot see");
			}
			ended.putAll(insertAll(pending));
			pending = pending.stream().filter((task) -> ended.get(task.id()) == null).toList();
		}
		List<EnqueueResult> results = new ArrayList<>(tasks.size());
		for (int i = 0; i < tasks.size(); i++) {
			NewTask row = rows.get(rowOf[i]);
			UUID id = Objects.requireNonNull(ended.get(row.id()));
			results.add(new EnqueueResult(id, !first[i] || !row.id().equals(id)));
		}
		return results;
	}

	/** One run of the statement: for each row's id the id it ended up with, or none. */
	private Map<UUID, UUID> insertAll(List<NewTask> rows) {
		TaskRows columns = new TaskRows(rows, this.buckets);
		String[] keys = new String[rows.size()];
		Boolean[] replacing = new Boolean[rows.size()];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = rows.get(i).uniqueKey();
			replacing[i] = keys[i] != null && rows.get(i).replace();
		}
		JdbcClient.StatementSpec statement = this.jdbc.sql(this.all)
			.param("ids", new SqlArrayValue("uuid", (Object[]) columns.ids))
			.param("queues", new SqlArrayValue("text", (Object[]) columns.queues))
			.param("payloads", new SqlArrayValue("text", (Object[]) columns.payloads))
			.param("priorities", new SqlArrayValue("int4", (Object[]) columns.priorities))
			.param("runAtMicros", new SqlArrayValue("int8", (Object[]) columns.runAtMicros))
			.param("delayMicros", new SqlArrayValue("int8", (Object[]) columns.delayMicros))
			.param("headers", new SqlArrayValue("text", (Object[]) columns.headers))
			.param("buckets", new SqlArrayValue("int2", (Object[]) columns.buckets))
			.param("keys", new SqlArrayValue("text", (Object[]) keys))
			.param("replacing", new SqlArrayValue("bool", (Object[]) replacing));
		if (this.notifyChannel != null) {
			statement = statement.param("channel", this.notifyChannel);
		}
		Map<UUID, UUID> ended = new HashMap<>();
		statement.query((RowCallbackHandler) (rs) -> {
			UUID id = rs.getObject(2, UUID.class);
			if (id != null) {
				ended.put(rs.getObject(1, UUID.class), id);
			}
		});
		return ended;
	}

}
