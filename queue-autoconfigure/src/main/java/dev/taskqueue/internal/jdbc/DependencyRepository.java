package dev.taskqueue.internal.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * Tasks that wait for other tasks: inserted into a table of their own ({@code taskqueue_waiting_task}), and moved
 * into the task table (or the dead letters) by the sweep once none of their prerequisites is waiting or running.
 * <p>
 * Nothing here runs when a task is claimed or completes: a completion deletes its task as any other, and the sweep
 * finds out by looking. A prerequisite is <em>pending</em> while its id is in the task table (waiting, scheduled,
 * running or waiting to retry) or in the waiting table; <em>failed</em> while it is in the dead letters; otherwise
 * <em>done</em>, which covers completed, cancelled, deleted and never-existed: a completed task leaves no row
 * (and history may be off), so "gone" cannot be told from "completed", and a dependent must not wait forever for a
 * task that completed before it was enqueued. Statements join the current Spring-managed transaction.
 */
public class DependencyRepository {

	private static final String INSERT = """
			INSERT INTO %1$s (id, queue, payload, priority, run_at, delay_micros, headers, batch_id, depends_on,
			                  on_failure)
			SELECT t.id, t.queue, CAST(t.payload AS jsonb), t.priority,
			       timestamptz 'epoch' + t.run_at_micros * interval '1 microsecond', t.delay_micros,
			       CAST(t.headers AS jsonb), CAST(:batchId AS uuid), CAST(string_to_array(t.depends_on, ',') AS uuid[]),
			       t.on_failure
			FROM unnest(:ids, :queues, :payloads, :priorities, :runAtMicros, :delayMicros, :headers, :dependsOn,
			            :onFailure)
			    AS t(id, queue, payload, priority, run_at_micros, delay_micros, headers, depends_on, on_failure)
			""";

	// Releases waiting tasks none of whose prerequisites is pending, exactly once: the row lock (SKIP LOCKED) and
	// the DELETE of the locked row let one statement win when instances sweep at the same moment (a row another
	// sweep deleted meanwhile is not locked, so not returned), and the task table's primary key is a second guard.
	// "Pending" and "dead" are read on one snapshot, in which a prerequisite is in exactly one of the task table, the
	// waiting table and the dead letters, or none: every move between them is one statement. A released task whose
	// first dead prerequisite (by failed_at) makes it fail goes to the dead letters with attempts 0, keeping its
	// batch (it has no keys, fairness key included: a request with prerequisites may have none); any other becomes
	// due: at its run-at time, or its delay after now. %4$s is its bucket (TaskBuckets.SQL).
	private static final String RELEASE = """
			WITH ready AS (
			    SELECT w.id FROM %1$s w
			    WHERE NOT EXISTS (SELECT 1 FROM %2$s t WHERE t.id = ANY (w.depends_on))
			      AND NOT EXISTS (SELECT 1 FROM %1$s p WHERE p.id = ANY (w.depends_on))
			    ORDER BY w.enqueued_at
			    LIMIT :limit
			    FOR UPDATE OF w SKIP LOCKED),
			released AS (
			    DELETE FROM %1$s w USING ready WHERE w.id = ready.id RETURNING w.*),
			judged AS (
			    SELECT r.*, f.id AS failed_id, f.error AS failed_error FROM released r
			    LEFT JOIN LATERAL (SELECT d.id, d.error FROM %3$s d WHERE d.id = ANY (r.depends_on)
			                       ORDER BY d.failed_at, d.id LIMIT 1) f ON true),
			dead AS (
			    INSERT INTO %3$s (id, queue, payload, priority, attempts, enqueued_at, failed_at, error, headers,
			                      batch_id)
			    SELECT id, queue, payload, priority, 0, enqueued_at, now(),
			           'Not run: its prerequisite ' || failed_id::text || ' is in the dead letters ('
			               || left(failed_error, 500) || ')',
			           headers, batch_id
			    FROM judged WHERE failed_id IS NOT NULL AND on_failure = 'DEAD'
			    RETURNING id, queue),
			due AS (
			    INSERT INTO %2$s (id, queue, payload, priority, run_at, enqueued_at, headers, batch_id, bucket)
			    SELECT id, queue, payload, priority,
			           CASE WHEN run_at IS NULL THEN now() + delay_micros * interval '1 microsecond'
			                ELSE GREATEST(run_at, now()) END,
			           enqueued_at, headers, batch_id, %4$s
			    FROM judged WHERE failed_id IS NULL OR on_failure <> 'DEAD'
			    RETURNING id, queue)
			SELECT true AS due, id, queue FROM due
			UNION ALL
			SELECT false AS due, id, queue FROM dead
			""";

	private static final String NOTIFY = """
			SELECT pg_notify(:channel, q) FROM unnest(CAST(:queues AS text[])) AS q
			""";

	private static final String ANY_WAITING = """
			SELECT EXISTS (SELECT 1 FROM %1$s)
			""";

	private final JdbcClient jdbc;

	private final @Nullable String notifyChannel;

	private final TaskBuckets buckets;

	private final String insert;

	private final String release;

	private final String anyWaiting;

	/**
	 * @param notifyChannel the channel the enqueues send their queues on with {@code NOTIFY}, or {@code null}
	 * @param buckets the bucket count of each queue, which decides the bucket of a released task
	 */
	public DependencyRepository(DataSource dataSource, TaskTables tables, @Nullable String notifyChannel,
			TaskBuckets buckets) {
		this.jdbc = JdbcClient.create(dataSource);
		this.notifyChannel = notifyChannel;
		this.buckets = buckets;
		this.insert = INSERT.formatted(tables.waitingTask());
		this.release = RELEASE.formatted(tables.waitingTask(), tables.task(), tables.deadTask(),
				TaskBuckets.SQL.formatted("judged.id", "judged.queue"));
		this.anyWaiting = ANY_WAITING.formatted(tables.waitingTask());
	}

	/** Inserts {@code tasks}, waiting for their prerequisites, in one statement; {@code batchId} may be null. */
	public void insert(List<WaitingTask> tasks, @Nullable UUID batchId) {
		if (tasks.isEmpty()) {
			return;
		}
		TaskRows rows = new TaskRows(tasks.stream().map(WaitingTask::task).toList(), this.buckets);
		String[] dependsOn = new String[tasks.size()];
		String[] onFailure = new String[tasks.size()];
		for (int i = 0; i < tasks.size(); i++) {
			dependsOn[i] = tasks.get(i).dependsOn().stream().map(UUID::toString).collect(Collectors.joining(","));
			onFailure[i] = tasks.get(i).runAnyway() ? "RUN_ANYWAY" : "DEAD";
		}
		this.jdbc.sql(this.insert)
			.param("batchId", batchId, java.sql.Types.OTHER)
			.param("ids", new SqlArrayValue("uuid", (Object[]) rows.ids))
			.param("queues", new SqlArrayValue("text", (Object[]) rows.queues))
			.param("payloads", new SqlArrayValue("text", (Object[]) rows.payloads))
			.param("priorities", new SqlArrayValue("int4", (Object[]) rows.priorities))
			.param("runAtMicros", new SqlArrayValue("int8", (Object[]) rows.runAtMicros))
			.param("delayMicros", new SqlArrayValue("int8", (Object[]) rows.delayMicros))
			.param("headers", new SqlArrayValue("text", (Object[]) rows.headers))
			.param("dependsOn", new SqlArrayValue("text", (Object[]) dependsOn))
			.param("onFailure", new SqlArrayValue("text", (Object[]) onFailure))
			.update();
	}

	/**
	 * Releases up to {@code limit} waiting tasks none of whose prerequisites is pending: each becomes due, or goes
	 * to the dead letters when a prerequisite is dead and its policy says so.
	 */
	public Released release(int limit) {
		List<UUID> due = new ArrayList<>();
		List<UUID> dead = new ArrayList<>();
		Set<String> queues = new LinkedHashSet<>();
		this.buckets.bind(this.jdbc.sql(this.release)).param("limit", limit).query((rs) -> {
			UUID id = rs.getObject("id", UUID.class);
			if (rs.getBoolean("due")) {
				due.add(id);
				queues.add(rs.getString("queue"));
			}
			else {
				dead.add(id);
			}
		});
		if (this.notifyChannel != null && !queues.isEmpty()) {
			this.jdbc.sql(NOTIFY)
				.param("channel", this.notifyChannel)
				.param("queues", new SqlArrayValue("text", queues.toArray()))
				.query((rs) -> { });
		}
		return new Released(due, dead);
	}

	/** Whether any task waits for prerequisites. */
	public boolean anyWaiting() {
		return Boolean.TRUE.equals(this.jdbc.sql(this.anyWaiting).query(Boolean.class).single());
	}

	/**
	 * What one release did.
	 *
	 * @param due the tasks that became due
	 * @param dead the tasks that went to the dead letters
	 */
	public record Released(List<UUID> due, List<UUID> dead) {

		/** How many tasks were released either way. */
		public int count() {
			return this.due.size() + this.dead.size();
		}

	}

	/**
	 * A task to insert that waits for other tasks (its prerequisites) before it becomes due.
	 *
	 * @param task the task, whose delay or run-at time count from the moment its prerequisites are done
	 * @param dependsOn the ids of its prerequisites, not empty
	 * @param runAnyway whether it becomes due when a prerequisite is in the dead letters, rather than go there too
	 */
	public record WaitingTask(NewTask task, List<UUID> dependsOn, boolean runAnyway) {

		/** This waiting task with other headers. */
		public WaitingTask withHeaders(String headers) {
			return new WaitingTask(this.task.withHeaders(headers), this.dependsOn, this.runAnyway);
		}

	}

}
