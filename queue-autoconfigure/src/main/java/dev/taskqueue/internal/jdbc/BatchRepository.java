package dev.taskqueue.internal.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueueOperations.BatchProgress;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * Task batches: the batch row and its tasks, inserted by one statement; the sweep that finishes the batches none of
 * whose tasks is left and enqueues their "then" task; a batch's progress.
 * <p>
 * Nothing here runs when a task completes: a completion deletes its task as any other, so the tasks of one batch
 * never wait for each other on a shared row. A batch is finished when no task carries its id any more; its dead
 * letters (which keep the id) say how many of its tasks died. Statements join the current Spring-managed transaction.
 */
public class BatchRepository {

	private static final String INSERT = """
			WITH batch AS (
			    INSERT INTO %2$s (id, total, then_task_id, then_queue, then_payload, then_priority, then_run_at,
			                      then_delay_micros, then_headers)
			    VALUES (:batchId, :total, :thenId, :thenQueue, CAST(:thenPayload AS jsonb), :thenPriority,
			            timestamptz 'epoch' + :thenRunAtMicros * interval '1 microsecond', :thenDelayMicros,
			            CAST(:thenHeaders AS jsonb))),
			inserted AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, batch_id, bucket)
			    SELECT t.id, t.queue, CAST(t.payload AS jsonb), t.priority,
			           COALESCE(timestamptz 'epoch' + t.run_at_micros * interval '1 microsecond',
			                    now() + t.delay_micros * interval '1 microsecond'),
			           CAST(t.headers AS jsonb), :batchId, t.bucket
			    FROM unnest(:ids, :queues, :payloads, :priorities, :runAtMicros, :delayMicros, :headers, :buckets)
			        AS t(id, queue, payload, priority, run_at_micros, delay_micros, headers, bucket)
			    RETURNING queue)
			SELECT q.queue%3$s FROM (SELECT DISTINCT queue FROM inserted) q
			""";

	// Finishes batches with no task left, exactly once: the row lock and "finished_at IS NULL" (checked again on
	// the row's newest version when another instance finished it meanwhile) let one statement win. The count of dead
	// letters and "no task left" are read on one snapshot, in which a task is always either in the task table or
	// in the dead letters (or, waiting for its prerequisites, in the waiting table): moving it is one statement. %5$s is the "then" task's bucket (TaskBuckets.SQL).
	private static final String FINISH = """
			WITH done AS (
			    SELECT b.id FROM %2$s b
			    WHERE b.finished_at IS NULL AND NOT EXISTS (SELECT 1 FROM %1$s t WHERE t.batch_id = b.id)
			      AND NOT EXISTS (SELECT 1 FROM %6$s w WHERE w.batch_id = b.id)
			    ORDER BY b.created_at
			    LIMIT :limit
			    FOR UPDATE OF b SKIP LOCKED),
			counted AS (
			    SELECT done.id, (SELECT count(*) FROM %3$s d WHERE d.batch_id = done.id) AS dead FROM done),
			finished AS (
			    UPDATE %2$s b SET finished_at = now(), dead = counted.dead, completed = b.total - counted.dead
			    FROM counted WHERE b.id = counted.id
			    RETURNING b.*),
			then_task AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket)
			    SELECT then_task_id, then_queue, then_payload, then_priority,
			           COALESCE(then_run_at, now() + then_delay_micros * interval '1 microsecond'),
			           then_headers || jsonb_build_object('taskqueue-batch-id', id::text,
			               'taskqueue-batch-total', total::text, 'taskqueue-batch-completed', completed::text,
			               'taskqueue-batch-dead', dead::text),
			           %5$s
			    FROM finished
			    RETURNING id, queue)
			SELECT id, queue%4$s FROM then_task
			""";

	private static final String ANY_OPEN = """
			SELECT EXISTS (SELECT 1 FROM %1$s WHERE finished_at IS NULL)
			""";

	// On the primary key whatever the plan, as RetentionRepository's prune.
	private static final String PRUNE = """
			DELETE FROM %1$s WHERE id = ANY(ARRAY(
			    SELECT id FROM %1$s WHERE finished_at < now() - :keepMicros * interval '1 microsecond'
			    LIMIT :limit FOR UPDATE SKIP LOCKED))
			""";

	private static final String PROGRESS = """
			SELECT b.id, b.total, b.created_at, b.finished_at, b.then_task_id,
			       CASE WHEN b.finished_at IS NULL
			            THEN (SELECT count(*) FROM %1$s t WHERE t.batch_id = b.id)
			                 + (SELECT count(*) FROM %4$s w WHERE w.batch_id = b.id) ELSE 0 END AS remaining,
			       CASE WHEN b.finished_at IS NULL
			            THEN (SELECT count(*) FROM %3$s d WHERE d.batch_id = b.id) ELSE b.dead END AS dead
			FROM %2$s b WHERE b.id = :id
			""";

	private final JdbcClient jdbc;

	private final @Nullable String notifyChannel;

	private final String insert;

	private final TaskBuckets buckets;

	private final String finish;

	private final String anyOpen;

	private final String prune;

	private final String progress;

	/**
	 * @param notifyChannel the channel the enqueues send their queues on with {@code NOTIFY}, or {@code null}
	 */
	public BatchRepository(DataSource dataSource, TaskTables tables, @Nullable String notifyChannel) {
		this(dataSource, tables, notifyChannel, TaskBuckets.NONE);
	}

	/**
	 * @param notifyChannel the channel the enqueues send their queues on with {@code NOTIFY}, or {@code null}
	 * @param buckets the bucket count of each queue, which decides the bucket of a new task; the instance that
	 * finishes a batch computes its "then" task's bucket in the statement
	 */
	public BatchRepository(DataSource dataSource, TaskTables tables, @Nullable String notifyChannel,
			TaskBuckets buckets) {
		this.jdbc = JdbcClient.create(dataSource);
		this.notifyChannel = notifyChannel;
		this.buckets = buckets;
		boolean notify = notifyChannel != null;
		this.insert = INSERT.formatted(tables.task(), tables.batch(), notify ? ", pg_notify(:channel, q.queue)" : "");
		this.finish = FINISH.formatted(tables.task(), tables.batch(), tables.deadTask(),
				notify ? ", pg_notify(:channel, queue)" : "",
				TaskBuckets.SQL.formatted("finished.then_task_id", "finished.then_queue"), tables.waitingTask());
		this.anyOpen = ANY_OPEN.formatted(tables.batch());
		this.prune = PRUNE.formatted(tables.batch());
		this.progress = PROGRESS.formatted(tables.task(), tables.batch(), tables.deadTask(), tables.waitingTask());
	}

	/**
	 * Inserts batch {@code batchId} with its {@code tasks} and the {@code then} task to enqueue once they are all
	 * done, in one statement. Neither the tasks nor {@code then} may have a unique key.
	 */
	public void insert(UUID batchId, List<NewTask> tasks, NewTask then) {
		insert(batchId, tasks, tasks.size(), then);
	}

	/**
	 * Inserts batch {@code batchId} of {@code total} tasks with those of its {@code tasks} that are due without
	 * waiting for others; the caller inserts the others (see {@link DependencyRepository}) in the same transaction.
	 */
	public void insert(UUID batchId, List<NewTask> tasks, int total, NewTask then) {
		TaskRows rows = new TaskRows(tasks, this.buckets);
		JdbcClient.StatementSpec statement = this.jdbc.sql(this.insert)
			.param("batchId", batchId)
			.param("total", total)
			.param("thenId", then.id())
			.param("thenQueue", then.queue())
			.param("thenPayload", then.payload())
			.param("thenPriority", then.priority())
			.param("thenRunAtMicros", Micros.sinceEpoch(then.runAt()), Types.BIGINT)
			.param("thenDelayMicros", Micros.of(then.delay()))
			.param("thenHeaders", then.headers())
			.param("ids", new SqlArrayValue("uuid", (Object[]) rows.ids))
			.param("queues", new SqlArrayValue("text", (Object[]) rows.queues))
			.param("payloads", new SqlArrayValue("text", (Object[]) rows.payloads))
			.param("priorities", new SqlArrayValue("int4", (Object[]) rows.priorities))
			.param("runAtMicros", new SqlArrayValue("int8", (Object[]) rows.runAtMicros))
			.param("delayMicros", new SqlArrayValue("int8", (Object[]) rows.delayMicros))
			.param("headers", new SqlArrayValue("text", (Object[]) rows.headers))
			.param("buckets", new SqlArrayValue("int2", (Object[]) rows.buckets));
		if (this.notifyChannel != null) {
			statement = statement.param("channel", this.notifyChannel);
		}
		statement.query((rs, row) -> null).list();
	}

	/**
	 * Finishes up to {@code limit} batches that have no task left and enqueues their "then" tasks.
	 * @return the ids of the "then" tasks enqueued
	 */
	public List<UUID> finishDone(int limit) {
		JdbcClient.StatementSpec statement = this.buckets.bind(this.jdbc.sql(this.finish)).param("limit", limit);
		if (this.notifyChannel != null) {
			statement = statement.param("channel", this.notifyChannel);
		}
		return statement.query((rs, row) -> rs.getObject("id", UUID.class)).list();
	}

	/** Whether any batch is still open. */
	public boolean anyOpen() {
		return Boolean.TRUE.equals(this.jdbc.sql(this.anyOpen).query(Boolean.class).single());
	}

	/** Deletes up to {@code limit} batches finished more than {@code keep} ago and returns how many. */
	public int pruneFinished(Duration keep, int limit) {
		return this.jdbc.sql(this.prune).param("keepMicros", Micros.of(keep)).param("limit", limit).update();
	}

	/** The progress of batch {@code id}, if there is such a batch. */
	public Optional<BatchProgress> progress(UUID id) {
		return this.jdbc.sql(this.progress).param("id", id).query(BatchRepository::progress).optional();
	}

	private static BatchProgress progress(ResultSet rs, int row) throws SQLException {
		int total = rs.getInt("total");
		long remaining = rs.getLong("remaining");
		long dead = rs.getLong("dead");
		OffsetDateTime finishedAt = rs.getObject("finished_at", OffsetDateTime.class);
		return new BatchProgress(rs.getObject("id", UUID.class), total, total - remaining - dead, dead, remaining,
				rs.getObject("created_at", OffsetDateTime.class).toInstant(),
				(finishedAt != null) ? finishedAt.toInstant() : null, rs.getObject("then_task_id", UUID.class));
	}

}
