package dev.taskqueue.internal.jdbc;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What operators change about queues: whether a queue is paused (one row per queue in {@code taskqueue_queue},
 * read by every instance with its heartbeat), and which tasks are cancelled: waiting ones, and running ones, whose
 * instances learn of it from {@code taskqueue_cancel_request} (see the worker's
 * {@code SessionRepository.cancelRequests}).
 * <p>
 * Statements join the current Spring-managed transaction.
 */
public class QueueRepository {

	private static final String SET_PAUSED = """
			INSERT INTO %1$s (name, paused) VALUES (:name, :paused)
			ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, changed_at = now()
			""";

	private static final String PAUSED = """
			SELECT name FROM %1$s WHERE paused
			""";

	private static final String IS_PAUSED = """
			SELECT EXISTS (SELECT 1 FROM %1$s WHERE name = :name AND paused)
			""";

	// Deletes the task whether it waits or runs. A running task's handler then finds no row to complete: its fenced
	// completion deletes nothing and its transaction rolls back, exactly as when its claim is lost, so a cancel and a
	// completion that race end one way or the other, never both. A claim in progress holds the row lock: this waits
	// for it and cancels the task as running. "requested" tells the session that runs it (claimed_by above HELD,
	// %3$s), which interrupts its handler; a task held behind its ordering key is no session's. A head cancelled makes
	// the key's next task the head (%2$s, PROMOTE). %5$s keeps it in the history when that is on (KEPT_CANCELLED).
	// Returns how many tasks were deleted and the session running the task, if one did.
	private static final String CANCEL = """
			WITH completed AS (
			    DELETE FROM %1$s WHERE id = :id RETURNING *),
			%2$s,
			requested AS (
			    INSERT INTO %4$s (task_id, session_id, attempt, requested_by)
			    SELECT id, claimed_by, attempt, :requestedBy FROM completed WHERE claimed_by > %3$s
			    ON CONFLICT (task_id) DO NOTHING)%5$s
			SELECT count(*) AS deleted, max(CAST(claimed_by AS text)) FILTER (WHERE claimed_by > %3$s) AS session
			FROM completed
			""";

	// A cancelled task in the history (taskqueue.history.enabled), with who asked; %1$s is the history table, %2$s
	// the CTE of the deleted rows, %4$s their keys and batch (a task waiting for prerequisites has none: a request
	// with dependsOn may have no key, fairness key included). Its attempts are those it was claimed for: 0 if it never
	// ran. %5$s is its attempt log: a running task's with the cancelled attempt appended (AttemptLog), NULL for a task
	// waiting on others.
	private static final String KEPT_CANCELLED = """
			,
			kept AS (
			    INSERT INTO %1$s (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers, outcome,
			                      cancelled_by, unique_key, ordering_key, fairness_key, batch_id, attempt_log)
			    SELECT id, queue, payload, priority, %3$s, enqueued_at, now(), headers, 'cancelled', :requestedBy, %4$s,
			           %5$s
			    FROM %2$s
			    ON CONFLICT (id) DO NOTHING)""";

	// Wakes the instance running a cancelled task at once, where the database has LISTEN/NOTIFY: delivered when the
	// cancel commits, on the enqueues' channel (TaskNotifications#cancelPayload).
	private static final String NOTIFY = """
			SELECT pg_notify(:channel, :payload)
			""";

	// One bounded batch: SKIP LOCKED passes over the rows a claim is taking right now, which are then running. A key
	// whose head and held tasks go in different batches gets its next head from the heartbeat's sweep. %2$s is HELD.
	// "id = ANY(ARRAY(...))", not "id IN (...)": the batch is deleted on the primary key whatever the plan, as
	// the retention's (operations/RetentionRepository; a generic plan of IN may hash-join a scan of the whole table).
	private static final String CANCEL_WAITING = """
			DELETE FROM %1$s WHERE id = ANY(ARRAY(
			    SELECT id FROM %1$s WHERE queue = :queue AND (claimed_by IS NULL OR claimed_by = %2$s)
			    LIMIT :batch FOR UPDATE SKIP LOCKED))
			""";

	// A task waiting for its prerequisites (TaskRequest.withDependsOn) is in a table of its own. SKIP LOCKED passes
	// over the rows a sweep is releasing right now, which are then in the task table.
	private static final String CANCEL_DEPENDENT = """
			WITH completed AS (
			    DELETE FROM %1$s WHERE id IN (SELECT id FROM %1$s WHERE id = :id FOR UPDATE SKIP LOCKED)
			    RETURNING *)%2$s
			SELECT count(*) FROM completed
			""";

	private static final String CANCEL_DEPENDENTS = """
			DELETE FROM %1$s WHERE id = ANY(ARRAY(
			    SELECT id FROM %1$s WHERE queue = :queue LIMIT :batch FOR UPDATE SKIP LOCKED))
			""";

	/*
	 * Bulk retry and delete of the waiting tasks that match a filter, one chunk per statement: the next :chunk
	 * matching rows in id order from a cursor, on the primary key (the id never changes, so a chunk never reads again
	 * what the ones before it took, and a million rows are read once in all), locked with SKIP LOCKED: a row a claim
	 * is taking right now is then running, and left alone, as running tasks are (claimed_by above HELD). Held tasks
	 * (claimed_by = HELD) wait too. The filter's times are when a task last failed (AttemptLog.LAST_ENDED). Tasks
	 * enqueued after :until, the database's now when the action began, are left out. %1$s is the task table, %2$s
	 * the filter's conditions (matchingWaiting). A retry makes a task due now and leaves a task already due where it
	 * is (LEAST); its attempts are kept. Deleted on the primary key, "id = ANY(ARRAY(...))", as CANCEL_WAITING. Each
	 * returns the ids it took, in order: the count, and the next cursor in the last.
	 */
	private static final String PICK_WAITING = """
			id = ANY(ARRAY(
			    SELECT id FROM %1$s WHERE %2$s AND enqueued_at <= :until AND id > :afterId
			    ORDER BY id LIMIT :chunk FOR UPDATE SKIP LOCKED))""";

	private static final String RETRY_WAITING = """
			WITH taken AS (UPDATE %1$s SET run_at = LEAST(run_at, now()) WHERE %2$s RETURNING id)
			SELECT id FROM taken ORDER BY id
			""";

	private static final String DELETE_WAITING = """
			WITH taken AS (DELETE FROM %1$s WHERE %2$s RETURNING id)
			SELECT id FROM taken ORDER BY id
			""";

	// The running tasks that match (matchingRunning), which a bulk action leaves alone: one range of
	// taskqueue_task_claimed_idx.
	private static final String RUNNING_MATCHING = """
			SELECT count(*) FROM %1$s WHERE %2$s
			""";

	private final JdbcClient jdbc;

	private final String cancelDependent;

	private final String cancelDependents;

	private final String setPaused;

	private final String paused;

	private final String isPaused;

	private final String cancel;

	private final String cancelWaiting;

	private final @Nullable String notifyChannel;

	private final String taskTable;

	/** Cancels tasks without keeping them in the history, and tells running ones' instances at their heartbeat. */
	public QueueRepository(DataSource dataSource, TaskTables tables) {
		this(dataSource, tables, false, null);
	}

	/**
	 * @param history whether cancelled tasks are kept in the history ({@code taskqueue.history.enabled})
	 * @param notifyChannel the channel a cancel of a running task notifies its instance on, or {@code null} when the
	 * database has no LISTEN/NOTIFY (the instance learns of it at its next heartbeat)
	 */
	public QueueRepository(DataSource dataSource, TaskTables tables, boolean history,
			@Nullable String notifyChannel) {
		this.notifyChannel = notifyChannel;
		this.jdbc = JdbcClient.create(dataSource);
		this.setPaused = SET_PAUSED.formatted(tables.queue());
		this.paused = PAUSED.formatted(tables.queue());
		this.isPaused = IS_PAUSED.formatted(tables.queue());
		this.cancel = CANCEL.formatted(tables.task(), OrderedKeys.promote(tables, "completed").stripTrailing(),
				OrderedKeys.HELD, tables.cancelRequest(),
				history ? KEPT_CANCELLED.formatted(tables.history(), "completed", "attempt",
						"unique_key, ordering_key, fairness_key, batch_id",
						"CASE WHEN completed.claimed_by > " + OrderedKeys.HELD + " THEN "
								+ AttemptLog.append("completed", tables, "'" + AttemptLog.CANCELLED + "'", "NULL")
								+ " ELSE completed.attempt_log END")
						: "");
		this.cancelWaiting = CANCEL_WAITING.formatted(tables.task(), OrderedKeys.HELD);
		this.cancelDependent = CANCEL_DEPENDENT.formatted(tables.waitingTask(),
				history ? KEPT_CANCELLED.formatted(tables.history(), "completed", "0", "NULL, NULL, NULL, batch_id",
						"NULL") : "");
		this.cancelDependents = CANCEL_DEPENDENTS.formatted(tables.waitingTask());
		this.taskTable = tables.task();
	}

	public void setPaused(String queue, boolean paused) {
		this.jdbc.sql(this.setPaused).param("name", queue).param("paused", paused).update();
	}

	/** The names of the paused queues. */
	public Set<String> paused() {
		return Set.copyOf(this.jdbc.sql(this.paused).query(String.class).list());
	}

	public boolean isPaused(String queue) {
		return this.jdbc.sql(this.isPaused).param("name", queue).query(Boolean.class).single();
	}

	/** {@link #cancel(UUID, String)} with no name for who asked. */
	public boolean cancel(UUID id) {
		return cancel(id, null);
	}

	/**
	 * Cancels task {@code id}: deletes it if it is waiting (for its time or for its prerequisites) or running; a
	 * running one's instance is told to interrupt its handler, whose transaction then cannot complete it.
	 * @param requestedBy who asked, kept with the request and in the history; {@code null} when unnamed
	 * @return {@code false} when no task with this id waits or runs
	 */
	public boolean cancel(UUID id, @Nullable String requestedBy) {
		Cancelled cancelled = this.jdbc.sql(this.cancel).param("id", id).param("requestedBy", requestedBy)
			.query((rows, row) -> new Cancelled(rows.getLong("deleted"), rows.getString("session"))).single();
		if (cancelled.deleted() == 1) {
			if (cancelled.session() != null && this.notifyChannel != null) {
				this.jdbc.sql(NOTIFY).param("channel", this.notifyChannel)
					.param("payload", TaskNotifications.cancelPayload(UUID.fromString(cancelled.session()), id))
					.query().listOfRows();
			}
			return true;
		}
		return this.jdbc.sql(this.cancelDependent).param("id", id).param("requestedBy", requestedBy)
			.query(Long.class).single() == 1;
	}

	private record Cancelled(long deleted, @Nullable String session) {
	}

	/**
	 * Deletes up to {@code batch} waiting tasks of {@code queue}, those waiting for prerequisites once no other is
	 * left, and returns how many.
	 */
	public int cancelWaiting(String queue, int batch) {
		int deleted = this.jdbc.sql(this.cancelWaiting).param("queue", queue).param("batch", batch).update();
		if (deleted < batch) {
			deleted += this.jdbc.sql(this.cancelDependents).param("queue", queue).param("batch", batch - deleted)
				.update();
		}
		return deleted;
	}


	/**
	 * Makes the waiting tasks that match due now, {@code chunk} per statement (each its own transaction outside
	 * one), until none is left that was enqueued when this began; running tasks are left alone.
	 * @param queue only this queue's, or {@code null}
	 * @param text only those whose last error contains this, ignoring case, or {@code null}
	 * @param from only those that last failed at this time or later, or {@code null}
	 * @param before only those that last failed before this time, or {@code null}
	 * @return how many tasks were taken, and how many running ones that match were left alone
	 */
	public Bulk retryWaiting(@Nullable String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before, int chunk) {
		return waitingInChunks(RETRY_WAITING, queue, text, from, before, chunk);
	}

	/** Deletes the waiting tasks that match, as {@link #retryWaiting} makes them due. */
	public Bulk deleteWaiting(@Nullable String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before, int chunk) {
		return waitingInChunks(DELETE_WAITING, queue, text, from, before, chunk);
	}

	private Bulk waitingInChunks(String action, @Nullable String queue, @Nullable String text,
			@Nullable Instant from, @Nullable Instant before, int chunk) {
		String sql = action.formatted(this.taskTable,
				PICK_WAITING.formatted(this.taskTable, matchingWaiting(queue, text, from, before)));
		OffsetDateTime until = this.jdbc.sql("SELECT now()").query(OffsetDateTime.class).single();
		int taken = BulkChunks.run(chunk, new UUID(0, 0), (after) -> BulkChunks
			.bind(this.jdbc.sql(sql), queue, text, from, before)
			.param("until", until)
			.param("afterId", after)
			.param("chunk", chunk)
			.query(UUID.class)
			.list());
		long running = BulkChunks
			.bind(this.jdbc.sql(RUNNING_MATCHING.formatted(this.taskTable, matchingRunning(queue, text, from, before))),
					queue, text, from, before)
			.query(Long.class)
			.single();
		return new Bulk(taken, running);
	}

	/**
	 * The conditions of a filter of waiting tasks (not claimed, or held behind their ordering key): their last
	 * error, and when they last failed (BulkChunks): a task that never failed has no such time, and matches no
	 * time condition.
	 */
	public static String matchingWaiting(@Nullable String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before) {
		return BulkChunks.matching("last_error", AttemptLog.LAST_ENDED, queue, text, from, before)
				+ " AND (claimed_by IS NULL OR claimed_by = " + OrderedKeys.HELD + ")";
	}

	/** The conditions of a filter of running tasks, as {@link #matchingWaiting} of waiting ones. */
	public static String matchingRunning(@Nullable String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before) {
		return BulkChunks.matching("last_error", AttemptLog.LAST_ENDED, queue, text, from, before)
				+ " AND claimed_by > " + OrderedKeys.HELD;
	}

	/** Binds what {@link #matchingWaiting} and {@link #matchingRunning} name. */
	public static JdbcClient.StatementSpec bindMatching(JdbcClient.StatementSpec statement, @Nullable String queue,
			@Nullable String text, @Nullable Instant from, @Nullable Instant before) {
		return BulkChunks.bind(statement, queue, text, from, before);
	}

	/**
	 * What a bulk action on waiting tasks did.
	 *
	 * @param taken how many tasks it made due or deleted
	 * @param runningSkipped how many running tasks matched its filter when it ended, and were left alone
	 */
	public record Bulk(int taken, long runningSkipped) {
	}

}
