package dev.taskqueue.internal.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.DeadTask;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Dead letters an operator lists, reads, retries or deletes. A retried task goes back to its queue ready at once,
 * with its attempts counted from zero, its original id, payload, priority, enqueue time, headers and fairness key,
 * and its last error.
 * <p>
 * Statements join the current Spring-managed transaction.
 */
public class DeadTaskRepository {

	// One statement moves the row: a concurrent retry of the same task finds it gone and moves nothing. A task of a
	// batch stays in it: an open batch waits for it again; a finished one has its counts already. It goes into the
	// bucket its queue's bucket count here gives it (%4$s, see TaskBuckets). It keeps its fairness key (V22), so the
	// fair claims give it its tenant's turn again, not that of the tasks without a key (docs/fairness.md); a dead
	// letter moved before V22 has none. Its unique and ordering keys are not restored: the statements that insert
	// tasks with those keep their indexes' rules (UniqueEnqueues, OrderedKeys), which this one does not.
	private static final String RETRY = """
			WITH dead AS (DELETE FROM %2$s WHERE %3$s RETURNING *)
			INSERT INTO %1$s (id, queue, payload, priority, run_at, enqueued_at, attempt, last_error, headers, batch_id,
			                  bucket, fairness_key, attempt_log)
			SELECT id, queue, payload, priority, now(), enqueued_at, 0, error, headers, batch_id, %4$s, fairness_key,
			       attempt_log
			FROM dead
			""";

	private static final String DELETE = """
			DELETE FROM %1$s WHERE %2$s
			""";

	private static final String COLUMNS = """
			SELECT id, queue, priority, attempts, enqueued_at, failed_at, payload::text AS payload, error, fairness_key
			FROM %1$s
			""";

	/*
	 * Keyset paging, newest first. The (queue, failed_at) index, or the (failed_at) one for all queues, is read
	 * backwards from the cursor and stops after :limit rows; the planner adds an incremental sort on id within one
	 * failed_at, which only ties need (every dead letter is moved by a transaction of its own, so ties are rare).
	 * No index beyond those of V1 and V2 is needed (figures in docs/internals.md).
	 */
	private static final String PAGE = """
			%1$s WHERE %2$s ORDER BY failed_at DESC, id DESC LIMIT :limit
			""";

	private static final String BEFORE_CURSOR = "(failed_at, id) < (:failedAt, :id)";

	/*
	 * Bulk retry and delete, one chunk per statement: the next :chunk matching rows in failure order from a cursor
	 * (so a chunk never reads again what the ones before it took), locked with SKIP LOCKED (a row another action
	 * holds is left to it), on the (queue, failed_at) or (failed_at) index. Rows that failed after :until, the
	 * database's now when the bulk action began, are left out: a retried task that dies again is not taken twice.
	 * %1$s is the dead-letter table, %2$s the filter's conditions. Each returns the rows' (failed_at, id) in that
	 * order: the count, and the next cursor in the last row (in PostgreSQL's order of uuids, not Java's).
	 */
	private static final String PICK = """
			WITH picked AS (
			    SELECT id FROM %1$s WHERE %2$s AND failed_at <= :until AND (failed_at, id) > (:afterAt, :afterId)
			    ORDER BY failed_at, id LIMIT :chunk FOR UPDATE SKIP LOCKED)
			""";

	private static final String RETRY_CHUNK = """
			, dead AS (DELETE FROM %1$s d USING picked p WHERE d.id = p.id RETURNING d.*),
			moved AS (INSERT INTO %2$s (id, queue, payload, priority, run_at, enqueued_at, attempt, last_error, headers,
			                            batch_id, bucket, fairness_key, attempt_log)
			          SELECT id, queue, payload, priority, now(), enqueued_at, 0, error, headers, batch_id, %3$s,
			                 fairness_key, attempt_log FROM dead)
			SELECT failed_at, id FROM dead ORDER BY failed_at, id
			""";

	private static final String DELETE_CHUNK = """
, gone AS (DELETE FROM %1$s d USING picked p WHERE d.id = p.id RETURNING d.failed_at, d.id)
			SELECT failed_at, id FROM gone ORDER BY failed_at, id
			""";

	private final JdbcClient jdbc;

	private final TaskBuckets buckets;

	private final String retryOne;

	private final String retryQueue;

	private final String deleteOne;

	private final String deleteQueue;

	private final String findOne;

	private final String[] pages;

	private final String deadTable;

	private final TaskTables tables;

	private final String retryChunk;

	private final String deleteChunk;

	public DeadTaskRepository(DataSource dataSource, TaskTables tables) {
		this(dataSource, tables, TaskBuckets.NONE);
	}

	/** @param buckets the bucket count of each queue, which decides the bucket of a retried task */
	public DeadTaskRepository(DataSource dataSource, TaskTables tables, TaskBuckets buckets) {
		this.jdbc = JdbcClient.create(dataSource);
		this.buckets = buckets;
		String bucket = TaskBuckets.SQL.formatted("dead.id", "dead.queue");
		this.retryOne = RETRY.formatted(tables.task(), tables.deadTask(), "id = :id", bucket);
		this.retryQueue = RETRY.formatted(tables.task(), tables.deadTask(), "queue = :queue", bucket);
		this.deleteOne = DELETE.formatted(tables.deadTask(), "id = :id");
		this.deleteQueue = DELETE.formatted(tables.deadTask(), "queue = :queue");
		this.deadTable = tables.deadTask();
		this.tables = tables;
		this.retryChunk = RETRY_CHUNK.formatted(tables.deadTask(), tables.task(), bucket);
		this.deleteChunk = DELETE_CHUNK.formatted(tables.deadTask());
		String select = COLUMNS.formatted(tables.deadTask()).strip();
		this.findOne = select + " WHERE id = :id";
		// By [queue given ? 1 : 0][cursor given ? 1 : 0]: four fixed statements, each with a plan of its own.
		this.pages = new String[] { PAGE.formatted(select, "true"), PAGE.formatted(select, BEFORE_CURSOR),
				PAGE.formatted(select, "queue = :queue"),
				PAGE.formatted(select, "queue = :queue AND " + BEFORE_CURSOR) };
	}

	/** Moves dead task {@code id} back to its queue; {@code false} when there is none. */
	public boolean retry(UUID id) {
		return this.buckets.bind(this.jdbc.sql(this.retryOne)).param("id", id).update() == 1;
	}

	/** Moves every dead task of {@code queue} back to it and returns how many. */
	public int retryAll(String queue) {
		return this.buckets.bind(this.jdbc.sql(this.retryQueue)).param("queue", queue).update();
	}

	/**
	 * Moves the dead tasks that match back to their queues, {@code chunk} per statement (each its own transaction
	 * outside one), until none is left that had failed when this began.
	 * @param queue only this queue's, or {@code null}
	 * @param text only those whose error contains this, ignoring case, or {@code null}
	 * @param from only those that failed at this time or later, or {@code null}
	 * @param before only those that failed before this time, or {@code null}
	 * @return how many were moved
	 */
	public int retryMatching(@Nullable String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before, int chunk) {
		return inChunks(this.retryChunk, true, queue, text, from, before, chunk);
	}

	/** Deletes the dead tasks that match, as {@link #retryMatching} moves them. */
	public int deleteMatching(@Nullable String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before, int chunk) {
		return inChunks(this.deleteChunk, false, queue, text, from, before, chunk);
	}

	private int inChunks(String action, boolean retry, @Nullable String queue, @Nullable String text,
			@Nullable Instant from, @Nullable Instant before, int chunk) {
		String sql = PICK.formatted(this.deadTable, matching(queue, text, from, before)).strip() + "\n" + action;
		OffsetDateTime until = this.jdbc.sql("SELECT now()").query(OffsetDateTime.class).single();
		Failed start = new Failed(OffsetDateTime.of(1, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), new UUID(0, 0));
		return BulkChunks.run(chunk, start, (after) -> {
			JdbcClient.StatementSpec statement = this.jdbc.sql(sql)
				.param("until", until)
				.param("afterAt", after.at())
				.param("afterId", after.id())
				.param("chunk", chunk);
			if (retry) {
				statement = this.buckets.bind(statement);
			}
			return BulkChunks.bind(statement, queue, text, from, before)
				.query((rs, row) -> new Failed(rs.getObject("failed_at", OffsetDateTime.class),
						rs.getObject("id", UUID.class)))
				.list();
		});
	}

	/** The cursor of a bulk action on dead letters: where it is in their failure order. */
	private record Failed(OffsetDateTime at, UUID id) {
	}

	/**
	 * The conditions of a filter of dead letters (BulkChunks), which the dashboard's lists and counts of dead letters
	 * share with the bulk actions; {@link #bindMatching} binds what they name.
	 */
	public static String matching(@Nullable String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before) {
		return BulkChunks.matching("error", "failed_at", queue, text, from, before);
	}

	/** Binds what {@link #matching} names. */
	public static JdbcClient.StatementSpec bindMatching(JdbcClient.StatementSpec statement, @Nullable String queue,
			@Nullable String text, @Nullable Instant from, @Nullable Instant before) {
		return BulkChunks.bind(statement, queue, text, from, before);
	}

	/** Deletes dead task {@code id}; {@code false} when there is none. */
	public boolean delete(UUID id) {
		return this.jdbc.sql(this.deleteOne).param("id", id).update() == 1;
	}

	/** Deletes every dead task of {@code queue} and returns how many. */
	public int deleteAll(String queue) {
		return this.jdbc.sql(this.deleteQueue).param("queue", queue).update();
	}

	/**
	 * Up to {@code limit} dead tasks, newest first.
	 * @param queue only this queue's, or {@code null} for all
	 * @param failedAt with {@code id}: only the tasks after this one in the order, or {@code null} from the first
	 * @param id the id of the task the page starts after
	 */
	public List<DeadTask> page(@Nullable String queue, @Nullable Instant failedAt, @Nullable UUID id, int limit) {
		JdbcClient.StatementSpec statement = this.jdbc.sql(pageSql(queue != null, failedAt != null))
			.param("limit", limit);
		if (queue != null) {
			statement = statement.param("queue", queue);
		}
		if (failedAt != null) {
			statement = statement.param("failedAt", OffsetDateTime.ofInstant(failedAt, ZoneOffset.UTC)).param("id", id);
		}
		return statement.query(DeadTaskRepository::deadTask).list();
	}

	/** The page statement, visible to the test that checks its plan. */
	String pageSql(boolean byQueue, boolean afterCursor) {
		return this.pages[(byQueue ? 2 : 0) + (afterCursor ? 1 : 0)];
	}

	/** Dead task {@code id}, if there is one, with its attempt log. */
	public Optional<DeadTask> find(UUID id) {
		return this.jdbc.sql(this.findOne).param("id", id).query(DeadTaskRepository::deadTask).optional()
			.map((task) -> withLog(task, AttemptLog.read(this.jdbc, this.deadTable, id)));
	}

	/**
	 * The attempt log of task {@code id}, waiting, running, dead or completed in the history, oldest first; empty
	 * when it never failed or there is no such task.
	 */
	public List<DeadTask.Attempt> attempts(UUID id) {
		return AttemptLog.readAnywhere(this.jdbc, this.tables, id);
	}

	private static DeadTask withLog(DeadTask task, List<DeadTask.Attempt> log) {
		return new DeadTask(task.id(), task.queue(), task.priority(), task.attempts(), task.enqueuedAt(),
				task.failedAt(), task.payload(), task.error(), log, task.fairnessKey());
	}

	private static DeadTask deadTask(ResultSet rs, int row) throws SQLException {
		return new DeadTask(rs.getObject("id", UUID.class), rs.getString("queue"), rs.getInt("priority"),
				rs.getInt("attempts"), rs.getObject("enqueued_at", OffsetDateTime.class).toInstant(),
				rs.getObject("failed_at", OffsetDateTime.class).toInstant(), rs.getString("payload"),
				rs.getString("error"), List.of(), rs.getString("fairness_key"));
	}

}
