package dev.taskqueue.internal.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.DeadTask;
import dev.taskqueue.TaskQueueOperations.BatchProgress;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionOperations;

/**
 * The dashboard's reads of single tasks and of pages of tasks. Every page is keyset-paged in an order an index
 * gives, stops after {@code :limit} rows, and never counts: its cost does not grow with the backlog or the page
 * number. Times in cursors are bound as microseconds since the epoch, as PostgreSQL keeps them.
 */
public class DashboardQueries {

	/**
	 * How many characters of a payload, and of an error, a page of tasks reads: the lists show 120 of them and the
	 * first line of the error.
	 */
	public static final int LIST_PREVIEW = 400;

	/** How many characters of a payload, and of an error, the page of one task reads and shows. */
	public static final int PAGE_PREVIEW = 64 * 1024;

	/*
	 * Payloads and errors are cut in SQL, never in Java: a page of 51 tasks of 10 MB each, read whole, is half a
	 * gigabyte of strings in the application's heap (an OutOfMemoryError). %2$s is the payload's expression, %3$s and
	 * %4$s the lengths (in bytes) the page of one task reads to say how much it does not show, NULL on the lists.
	 */
	private static final String COLUMNS = """
			SELECT id, queue, %2$s AS payload, %3$s AS payload_bytes, priority, run_at, enqueued_at, attempt,
			       claimed_by, claimed_at, left(last_error, :preview) AS last_error, %4$s AS error_bytes, unique_key,
			       ordering_key, ordering_seq FROM %1$s
			""";

	/*
	 * Cutting a jsonb payload still makes PostgreSQL decompress it and write it all as text: some 100 ms for 10 MB,
	 * seconds for a page of 51. So a list cuts only payloads stored in at most LIST_STORED bytes (pg_column_size reads
	 * the stored size without decompressing) and shows LARGE for the others: their task's page shows their start.
	 */
	private static final int LIST_STORED = 16 * 1024;

	/** What a list shows for a payload too large to cut cheaply. */
	public static final String LARGE = "(large payload: open the task to see its start)";

	private static final String LIST_PAYLOAD = "CASE WHEN pg_column_size(payload) <= " + LIST_STORED
			+ " THEN left(payload::text, :preview) ELSE '" + LARGE + "' END";

	// The page of one task writes the payload as text once (OFFSET 0 keeps the planner from inlining it twice), to
	// cut it and to measure it.
	private static final String ONE = "%s, LATERAL (SELECT payload::text AS payload_text OFFSET 0) whole";

	private static final String ONE_PAYLOAD = "left(whole.payload_text, :preview)";

	private static final String PAYLOAD_LENGTH = "octet_length(whole.payload_text)";

	private static final String NO_LENGTH = "NULL::bigint";

	private static final String AT = "(timestamptz 'epoch' + %s * interval '1 microsecond')";

	/*
	 * Waiting tasks in claim order (priority DESC, run_at, id), on the claim's own partial index. Within one bucket
	 * and priority the ready rows (run_at <= now()) and the scheduled ones are each one contiguous range of the index,
	 * but across buckets and priorities they interleave: a plain ORDER BY ... LIMIT would read every ready row to find
	 * the first scheduled one. So, as the gauges do, the buckets (one, 0, unless the queue is hash-sharded) and each
	 * one's priorities are found by skipping through the index (one probe each), and each range is read from the
	 * cursor on, at most :limit rows. The cursor (:priority, run_at, :id) applies
	 * to its own priority only; lower priorities are read from their start. :due is "run_at <= now()" or
	 * "run_at > now()".
	 */
	private static final String WAITING = """
			WITH RECURSIVE buckets AS (
			    SELECT (SELECT min(bucket) FROM %1$s WHERE claimed_by IS NULL AND queue = :queue) AS bucket
			    UNION ALL
			    SELECT (SELECT min(t.bucket) FROM %1$s t
			            WHERE t.claimed_by IS NULL AND t.queue = :queue AND t.bucket > b.bucket)
			    FROM buckets b WHERE b.bucket IS NOT NULL),
			priorities AS (
			    SELECT b.bucket, (SELECT max(priority) FROM %1$s
			                      WHERE claimed_by IS NULL AND queue = :queue AND bucket = b.bucket
			                        AND priority <= :priority) AS priority
			    FROM buckets b WHERE b.bucket IS NOT NULL
			    UNION ALL
			    SELECT p.bucket, (SELECT max(t.priority) FROM %1$s t
			                      WHERE t.claimed_by IS NULL AND t.queue = :queue AND t.bucket = p.bucket
			                        AND t.priority < p.priority)
			    FROM priorities p WHERE p.priority IS NOT NULL)
			SELECT page.* FROM priorities p CROSS JOIN LATERAL (
			    %2$s WHERE claimed_by IS NULL AND queue = :queue AND bucket = p.bucket AND priority = p.priority AND %3$s
			      AND (run_at, id) > (CASE WHEN p.priority = :priority THEN %4$s ELSE '-infinity' END,
			                          CASE WHEN p.priority = :priority THEN :id ELSE '%5$s'::uuid END)
			    ORDER BY run_at, id LIMIT :limit) page
			WHERE p.priority IS NOT NULL
			ORDER BY page.priority DESC, page.run_at, page.id LIMIT :limit
			""";

	// The planner cannot estimate the recursive part and may cost it high enough to JIT-compile it: seconds lost.
	private static final String NO_JIT = """
			SET LOCAL jit = off
			""";

	private static final UUID NO_ID = new UUID(0, 0);

	// 0001-01-01: before any task, within PostgreSQL's range.
	private static final long FIRST_MICROS = -62_135_596_800_000_000L;

	// Running tasks are as many as the instances' concurrency and prefetch allow: a sort of them is cheap. Tasks
	// held behind their ordering key carry a claimed_by too, HELD, the nil UUID, which sorts before every session
	// id: "claimed_by > HELD" is one range of taskqueue_task_claimed_idx that skips them (however many there are).
	private static final String RUNNING = """
			%1$s WHERE queue = :queue AND claimed_by > %3$s AND (claimed_at, id) > (%2$s, :id)
			ORDER BY claimed_at, id LIMIT :limit
			""";

	// Held tasks in key order, then in the order they will run, on taskqueue_task_ordering_held_idx.
	private static final String HELD = """
			%1$s WHERE queue = :queue AND claimed_by = %2$s AND (ordering_key, ordering_seq) > (:key, :seq)
			ORDER BY ordering_key, ordering_seq LIMIT :limit
			""";

	// The newest open batches (on taskqueue_batch_open_idx) and the last finished ones (on ..._finished_idx). An open
	// batch's waiting and dead tasks are counted on the batch_id indexes, up to :cap each, never more.
	private static final String BATCHES = """
			(SELECT b.id, b.total, b.created_at, b.finished_at, b.then_task_id,
			        (SELECT count(*) FROM (SELECT 1 FROM %2$s t WHERE t.batch_id = b.id LIMIT :cap) r) AS remaining,
			        (SELECT count(*) FROM (SELECT 1 FROM %3$s d WHERE d.batch_id = b.id LIMIT :cap) r) AS dead
			 FROM %1$s b WHERE b.finished_at IS NULL ORDER BY b.created_at DESC LIMIT :open)
			UNION ALL
			(SELECT b.id, b.total, b.created_at, b.finished_at, b.then_task_id, 0, b.dead
			 FROM %1$s b WHERE b.finished_at IS NOT NULL ORDER BY b.finished_at DESC LIMIT :finished)
			""";

	private static final String DEAD_COLUMNS = """
			SELECT id, queue, priority, attempts, enqueued_at, failed_at, %2$s AS payload, %3$s AS payload_bytes,
			       left(error, :preview) AS error, %4$s AS error_bytes FROM %1$s
			""";

	// Newest first on the (queue, failed_at) or (failed_at) index; a text filter reads on until :limit rows match.
	private static final String DEAD_ORDER = " ORDER BY failed_at DESC, id DESC LIMIT :limit";

	private final JdbcClient jdbc;

	private final TransactionOperations transactions;

	private final String ready;

	private final String scheduled;

	private final String running;

	private final String held;

	private final String batches;

	private final String findOne;

	private final String deadSelect;

	private final String findDead;

	private final String deadQueue;

	/**
	 * @param transactions transactions on {@code dataSource}, in which the pages of waiting tasks switch JIT off
	 */
	public DashboardQueries(DataSource dataSource, TaskTables tables, TransactionOperations transactions) {
		this.jdbc = JdbcClient.create(dataSource);
		this.transactions = transactions;
		String select = COLUMNS.formatted(tables.task(), LIST_PAYLOAD, NO_LENGTH, NO_LENGTH).strip();
		String at = AT.formatted(":micros");
		this.ready = WAITING.formatted(tables.task(), select, "run_at <= now()", at, NO_ID);
		this.scheduled = WAITING.formatted(tables.task(), select, "run_at > now()", at, NO_ID);
		this.running = RUNNING.formatted(select, at, OrderedKeys.HELD);
		this.held = HELD.formatted(select, OrderedKeys.HELD);
		this.batches = BATCHES.formatted(tables.batch(), tables.task(), tables.deadTask());
		this.findOne = COLUMNS.formatted(ONE.formatted(tables.task()), ONE_PAYLOAD, PAYLOAD_LENGTH,
				"octet_length(last_error)").strip() + " WHERE id = :id";
		this.deadSelect = DEAD_COLUMNS.formatted(tables.deadTask(), LIST_PAYLOAD, NO_LENGTH, NO_LENGTH).strip();
		this.findDead = DEAD_COLUMNS.formatted(ONE.formatted(tables.deadTask()), ONE_PAYLOAD, PAYLOAD_LENGTH,
				"octet_length(error)").strip() + " WHERE id = :id";
		this.deadQueue = "SELECT queue FROM " + tables.deadTask() + " WHERE id = :id";
	}

	/**
	 * Ready tasks of {@code queue} in the order they will be claimed.
	 * @param after the last task of the page before, or {@code null} for the first page
	 */
	public List<TaskView> ready(String queue, @Nullable Keyset after, int limit) {
		return waiting(this.ready, queue, after, limit);
	}

	/** Tasks of {@code queue} due later (delayed or waiting to retry), in claim order. */
	public List<TaskView> scheduled(String queue, @Nullable Keyset after, int limit) {
		return waiting(this.scheduled, queue, after, limit);
	}

	private List<TaskView> waiting(String sql, String queue, @Nullable Keyset after, int limit) {
		List<TaskView> page = this.transactions.execute((status) -> {
			this.jdbc.sql(NO_JIT).update();
			return this.jdbc.sql(sql)
				.param("queue", queue)
				.param("limit", limit)
				.param("priority", (after != null) ? after.priority() : Integer.MAX_VALUE)
				.param("micros", (after != null) ? after.micros() : FIRST_MICROS)
				.param("id", (after != null) ? after.id() : NO_ID)
				.param("preview", LIST_PREVIEW)
				.query(DashboardQueries::task)
				.list();
		});
		return (page != null) ? page : List.of();
	}

	/**
	 * Running tasks of {@code queue}, longest running first.
	 * @param after the claim time and id of the last task of the page before, or {@code null} for the first page
	 */
	public List<TaskView> running(String queue, @Nullable Keyset after, int limit) {
		return this.jdbc.sql(this.running)
			.param("queue", queue)
			.param("micros", (after != null) ? after.micros() : 0L) // every claim is after 1970
			.param("id", (after != null) ? after.id() : new UUID(0, 0))
			.param("limit", limit)
			.param("preview", LIST_PREVIEW)
			.query(DashboardQueries::task)
			.list();
	}

	/**
	 * Tasks of {@code queue} held behind an earlier task of their ordering key, by key and then in the order
	 * they will run.
	 * @param afterKey the ordering key of the last task of the page before, or {@code null} for the first page
	 * @param afterSeq that task's ordering sequence number
	 */
	public List<TaskView> held(String queue, @Nullable String afterKey, long afterSeq, int limit) {
		return this.jdbc.sql(this.held)
			.param("queue", queue)
			.param("key", (afterKey != null) ? afterKey : "")
			.param("seq", (afterKey != null) ? afterSeq : Long.MIN_VALUE)
			.param("limit", limit)
			.param("preview", LIST_PREVIEW)
			.query(DashboardQueries::task)
			.list();
	}

	/**
	 * The newest open batches, then the most recently finished ones, with their progress. The waiting and dead
	 * tasks of an open batch are counted up to {@code cap} each.
	 */
	public List<BatchProgress> batches(int open, int finished, int cap) {
		return this.jdbc.sql(this.batches)
			.param("open", open)
			.param("finished", finished)
			.param("cap", cap)
			.query((rs, row) -> {
				OffsetDateTime finishedAt = rs.getObject("finished_at", OffsetDateTime.class);
				int total = rs.getInt("total");
				long remaining = rs.getLong("remaining");
				long dead = rs.getLong("dead");
				return new BatchProgress(rs.getObject("id", UUID.class), total, Math.max(0, total - remaining - dead),
						dead, remaining, instant(rs, "created_at"), (finishedAt != null) ? finishedAt.toInstant() : null,
						rs.getObject("then_task_id", UUID.class));
			})
			.list();
	}

	/**
	 * The waiting or running task {@code id}, if there is one, with the first {@link #PAGE_PREVIEW} characters of its
	 * payload and error.
	 */
	public Optional<TaskView> find(UUID id) {
		return this.jdbc.sql(this.findOne)
			.param("id", id)
			.param("preview", PAGE_PREVIEW)
			.query(DashboardQueries::task)
			.optional();
	}

	/**
	 * The dead task {@code id}, if there is one, with the first {@link #PAGE_PREVIEW} characters of its payload and
	 * error, and their whole lengths.
	 */
	public Optional<DeadTaskView> findDead(UUID id) {
		return this.jdbc.sql(this.findDead)
			.param("id", id)
			.param("preview", PAGE_PREVIEW)
			.query((rs, row) -> {
				DeadTask task = deadTask(rs, row);
				return new DeadTaskView(task, cut(task.payload(), rs.getLong("payload_bytes")),
						cut(task.error(), rs.getLong("error_bytes")));
			})
			.optional();
	}

	/** The queue of the dead task {@code id}, if there is one: no payload read to tell an action where it goes. */
	public Optional<String> deadQueue(UUID id) {
		return this.jdbc.sql(this.deadQueue).param("id", id).query(String.class).optional();
	}

	/**
	 * Dead tasks, newest first.
	 * @param queue only this queue's, or {@code null}
	 * @param text only those whose error contains this text, ignoring case, or {@code null}
	 * @param after the failure time and id of the last task of the page before, or {@code null} for the first page
	 */
	public List<DeadTask> deadTasks(@Nullable String queue, @Nullable String text, @Nullable Keyset after,
			int limit) {
		// Only fixed fragments make up the statement; values are parameters.
		List<String> conditions = new ArrayList<>();
		conditions.add("true");
		if (queue != null) {
			conditions.add("queue = :queue");
		}
		if (text != null) {
			conditions.add("strpos(lower(error), lower(:text)) > 0");
		}
		if (after != null) {
			conditions.add("(failed_at, id) < (" + AT.formatted(":micros") + ", :id)");
		}
		JdbcClient.StatementSpec statement = this.jdbc
			.sql(this.deadSelect + " WHERE " + String.join(" AND ", conditions) + DEAD_ORDER)
			.param("limit", limit)
			.param("preview", LIST_PREVIEW);
		if (queue != null) {
			statement = statement.param("queue", queue);
		}
		if (text != null) {
			statement = statement.param("text", text);
		}
		if (after != null) {
			statement = statement.param("micros", after.micros()).param("id", after.id());
		}
		return statement.query(DashboardQueries::deadTask).list();
	}

	private static TaskView task(ResultSet rs, int row) throws SQLException {
		OffsetDateTime claimedAt = rs.getObject("claimed_at", OffsetDateTime.class);
		return new TaskView(rs.getObject("id", UUID.class), rs.getString("queue"), rs.getString("payload"),
				rs.getInt("priority"), instant(rs, "run_at"), instant(rs, "enqueued_at"), rs.getInt("attempt"),
				rs.getObject("claimed_by", UUID.class), (claimedAt != null) ? claimedAt.toInstant() : null,
				rs.getString("last_error"), rs.getString("unique_key"), rs.getString("ordering_key"),
				rs.getObject("ordering_seq", Long.class), cut(rs.getString("payload"), rs.getLong("payload_bytes")),
				cut(rs.getString("last_error"), rs.getLong("error_bytes")));
	}

	/**
	 * {@code bytes}, the whole text's length, when {@code read} is only its start; 0 when it is all of it, or the
	 * length was not read. Decided here, before a TaskRedactor changes the text.
	 */
	private static long cut(@Nullable String read, long bytes) {
		return (read != null && bytes > read.getBytes(StandardCharsets.UTF_8).length) ? bytes : 0;
	}

	private static DeadTask deadTask(ResultSet rs, int row) throws SQLException {
		return new DeadTask(rs.getObject("id", UUID.class), rs.getString("queue"), rs.getInt("priority"),
				rs.getInt("attempts"), instant(rs, "enqueued_at"), instant(rs, "failed_at"), rs.getString("payload"),
				rs.getString("error"));
	}

	private static Instant instant(ResultSet rs, String column) throws SQLException {
		return rs.getObject(column, OffsetDateTime.class).toInstant();
	}

}
