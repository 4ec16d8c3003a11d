package dev.taskqueue.internal.dashboard;

import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.DeadTask;
import dev.taskqueue.TaskQueueOperations.BatchProgress;
import dev.taskqueue.internal.jdbc.AttemptLog;
import dev.taskqueue.internal.jdbc.DeadTaskRepository;
import dev.taskqueue.internal.jdbc.OrderedKeys;
import dev.taskqueue.internal.jdbc.QueueRepository;
import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionOperations;

/**
 * The dashboard's reads of single tasks and of pages of tasks. Every page is keyset-paged in an order an index
 * gives, stops after {@code :limit} rows, and never counts: its cost does not grow with the backlog or the page
 * number. Times in cursors are bound as microseconds since the epoch, as PostgreSQL keeps them.
 */
class DashboardQueries {

	/**
	 * How many characters of a payload, and of an error, a page of tasks reads: the lists show 120 of them and the
	 * first line of the error.
	 */
	static final int LIST_PREVIEW = 400;

	/** How many characters of a payload, and of an error, the page of one task reads and shows. */
	static final int PAGE_PREVIEW = 64 * 1024;

	/*
	 * Payloads and errors are cut in SQL, never in Java: a page of 51 tasks of 10 MB each, read whole, is half a
	 * gigabyte of strings in the application's heap (an OutOfMemoryError). %2$s is the payload's expression, %3$s and
	 * %4$s the lengths (in bytes) the page of one task reads to say how much it does not show, NULL on the lists.
	 */
	private static final String COLUMNS = """
			SELECT id, queue, %2$s AS payload, %3$s AS payload_bytes, priority, run_at, enqueued_at, attempt,
			       claimed_by, claimed_at, left(last_error, :preview) AS last_error, %4$s AS error_bytes, unique_key,
			       ordering_key, ordering_seq, fairness_key FROM %1$s
			""";

	/*
	 * Cutting a jsonb payload still makes PostgreSQL decompress it and write it all as text: some 100 ms for 10 MB,
	 * seconds for a page of 51. So a list cuts only payloads stored in at most LIST_STORED bytes (pg_column_size reads
	 * the stored size without decompressing) and shows LARGE for the others: their task's page shows their start.
	 */
	private static final int LIST_STORED = 16 * 1024;

	/** What a list shows for a payload too large to cut cheaply. */
	static final String LARGE = "(large payload: open the task to see its start)";

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
	 * cursor on, at most :limit rows. The cursor (:priority, run_at, :id) applies to its own priority only; lower
	 * priorities are read from their start. %3$s is where a range starts and ends: READY_RANGE or SCHEDULED_RANGE.
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
			    %2$s WHERE claimed_by IS NULL AND queue = :queue AND bucket = p.bucket AND priority = p.priority
			      AND %3$s
			    ORDER BY run_at, id LIMIT :limit) page
			WHERE p.priority IS NOT NULL
			ORDER BY page.priority DESC, page.run_at, page.id LIMIT :limit
			""";

	// The ready tasks of a priority from the cursor (%1$s its run_at), or from the start, up to now.
	private static final String READY_RANGE = """
			run_at <= now()
			      AND (run_at, id) > (CASE WHEN p.priority = :priority THEN %1$s ELSE '-infinity' END,
			                          CASE WHEN p.priority = :priority THEN :id ELSE '%2$s'::uuid END)""";

	// The scheduled tasks of a priority from the cursor, or from now: one row comparison, not "run_at > now()" beside
	// the cursor's. Given both, PostgreSQL before 18 starts the index scan at the row comparison and filters the
	// other, so a scheduled page read every ready task of the priority first (1.5 s a page with 10,000,000 tasks on
	// PostgreSQL 15). A cursor that now() has passed starts at now().
	private static final String SCHEDULED_RANGE = """
			(run_at, id) > (CASE WHEN p.priority = :priority AND %1$s > now() THEN %1$s ELSE now() END,
			                      CASE WHEN p.priority = :priority AND %1$s > now() THEN :id ELSE '%2$s'::uuid END)""";

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
			       left(error, :preview) AS error, %4$s AS error_bytes, fairness_key FROM %1$s
			""";

	// Newest first on the (queue, failed_at) or (failed_at) index; a text filter reads on until :limit rows match.
	private static final String DEAD_ORDER = " ORDER BY failed_at DESC, id DESC LIMIT :limit";

	/*
	 * Search. A waiting task's unique and ordering keys are indexed by (queue, key) only (V3, V4): a key alone, in any
	 * queue, is found by skipping through the index from queue to queue (one probe each, as WAITING finds its
	 * buckets) and probing (queue, key) in each, so the cost grows with the number of queues that have keyed tasks,
	 * never with the tasks. Each part is bounded by :limit. Found first: by id, then by unique key, the heads of an
	 * ordering key, the tasks held behind them in their order (seq), a batch's tasks. In FOUND_TASK %1$s is the task
	 * table, %2$s HELD, %3$s the state and %4$s the time shown of a waiting task.
	 */
	private static final String FOUND_TASK = """
			SELECT %%d AS rank, '%%s' AS matched, %%s AS seq, t.id, t.queue, %3$s AS state, %4$s AS at,
			       coalesce(t.unique_key, t.ordering_key) AS key FROM %1$s t
			""";

	private static final String SEARCH_KEYS = """
			WITH RECURSIVE unique_queues AS (
			    SELECT (SELECT min(queue) FROM %1$s WHERE unique_key IS NOT NULL) AS queue
			    UNION ALL
			    SELECT (SELECT min(t.queue) FROM %1$s t WHERE t.unique_key IS NOT NULL AND t.queue > q.queue)
			    FROM unique_queues q WHERE q.queue IS NOT NULL),
			head_queues AS (
			    SELECT (SELECT min(queue) FROM %1$s
			            WHERE ordering_key IS NOT NULL AND claimed_by IS DISTINCT FROM %2$s) AS queue
			    UNION ALL
			    SELECT (SELECT min(t.queue) FROM %1$s t
			            WHERE t.ordering_key IS NOT NULL AND t.claimed_by IS DISTINCT FROM %2$s AND t.queue > q.queue)
			    FROM head_queues q WHERE q.queue IS NOT NULL),
			held_queues AS (
			    SELECT (SELECT min(queue) FROM %1$s WHERE claimed_by = %2$s) AS queue
			    UNION ALL
			    SELECT (SELECT min(t.queue) FROM %1$s t WHERE t.claimed_by = %2$s AND t.queue > q.queue)
			    FROM held_queues q WHERE q.queue IS NOT NULL)
			SELECT * FROM (
			(SELECT found.* FROM unique_queues q CROSS JOIN LATERAL (
			    %3$s WHERE t.queue = q.queue AND t.unique_key = :key AND t.unique_key IS NOT NULL LIMIT :limit) found
			 WHERE q.queue IS NOT NULL LIMIT :limit)
			UNION ALL
			(SELECT found.* FROM head_queues q CROSS JOIN LATERAL (
			    %4$s WHERE t.queue = q.queue AND t.ordering_key = :key AND t.ordering_key IS NOT NULL
			      AND t.claimed_by IS DISTINCT FROM %2$s LIMIT :limit) found
			 WHERE q.queue IS NOT NULL LIMIT :limit)
			UNION ALL
			(SELECT found.* FROM held_queues q CROSS JOIN LATERAL (
			    %5$s WHERE t.queue = q.queue AND t.ordering_key = :key AND t.claimed_by = %2$s
			    ORDER BY t.ordering_seq LIMIT :limit) found
			 WHERE q.queue IS NOT NULL LIMIT :limit)
			%6$s) found
			ORDER BY rank, seq, at, id LIMIT :limit
			""";

	// Dead letters (%1$s) and history rows (%2$s) by their unique or ordering key, on the partial key indexes of V21
	// (by the key alone: these tables have no queue-first key index to skip through), :limit rows each. Rows moved
	// there before V21 have no keys. A history row's state is its outcome: completed or cancelled.
	private static final String SEARCH_STORED_KEYS = """
			UNION ALL
			(SELECT 2, 'unique key', 0, d.id, d.queue, 'dead', d.failed_at, d.unique_key FROM %1$s d
			 WHERE d.unique_key = :key AND d.unique_key IS NOT NULL LIMIT :limit)
			UNION ALL
			(SELECT 2, 'unique key', 0, h.id, h.queue, h.outcome, h.completed_at, h.unique_key FROM %2$s h
			 WHERE h.unique_key = :key AND h.unique_key IS NOT NULL LIMIT :limit)
			UNION ALL
			(SELECT 3, 'ordering key', 0, d.id, d.queue, 'dead', d.failed_at, d.ordering_key FROM %1$s d
			 WHERE d.ordering_key = :key AND d.ordering_key IS NOT NULL LIMIT :limit)
			UNION ALL
			(SELECT 3, 'ordering key', 0, h.id, h.queue, h.outcome, h.completed_at, h.ordering_key FROM %2$s h
			 WHERE h.ordering_key = :key AND h.ordering_key IS NOT NULL LIMIT :limit)
			""";

	// With a UUID, also a task by its id (a primary-key probe in each table) and the tasks, dead letters and history
	// rows of a batch (on the batch_id indexes of V7 and V21, :limit rows each, in no order an index gives: a batch
	// may have millions).
	private static final String SEARCH_ID = """
			UNION ALL
			(%1$s WHERE t.id = :id)
			UNION ALL
			(SELECT 1, 'id', 0, d.id, d.queue, 'dead', d.failed_at, coalesce(d.unique_key, d.ordering_key)
			 FROM %3$s d WHERE d.id = :id)
			UNION ALL
			(SELECT 1, 'id', 0, h.id, h.queue, h.outcome, h.completed_at, coalesce(h.unique_key, h.ordering_key)
			 FROM %4$s h WHERE h.id = :id)
			UNION ALL
			(%2$s WHERE t.batch_id = :id AND t.batch_id IS NOT NULL LIMIT :limit)
			UNION ALL
			(SELECT 5, 'batch', 0, d.id, d.queue, 'dead', d.failed_at, coalesce(d.unique_key, d.ordering_key)
			 FROM %3$s d WHERE d.batch_id = :id AND d.batch_id IS NOT NULL LIMIT :limit)
			UNION ALL
			(SELECT 5, 'batch', 0, h.id, h.queue, h.outcome, h.completed_at, coalesce(h.unique_key, h.ordering_key)
			 FROM %4$s h WHERE h.batch_id = :id AND h.batch_id IS NOT NULL LIMIT :limit)
			""";

	private static final String TASK_STATE = "CASE WHEN t.claimed_by IS NULL THEN CASE WHEN t.run_at > now() THEN "
			+ "'scheduled' ELSE 'ready' END WHEN t.claimed_by = %s THEN 'held' ELSE 'running' END";

	private static final String TASK_AT = "coalesce(t.claimed_at, t.run_at)";

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

	private final String taskTable;

	private final String deadQueue;

	private final String deadTable;

	private final String taskSelect;

	private final String searchKeys;

	private final String searchAll;

	/**
	 * @param transactions transactions on {@code dataSource}, in which the pages of waiting tasks switch JIT off
	 */
	DashboardQueries(DataSource dataSource, TaskTables tables, TransactionOperations transactions) {
		this.jdbc = JdbcClient.create(dataSource);
		this.transactions = transactions;
		String select = COLUMNS.formatted(tables.task(), LIST_PAYLOAD, NO_LENGTH, NO_LENGTH).strip();
		String at = AT.formatted(":micros");
		this.ready = WAITING.formatted(tables.task(), select, READY_RANGE.formatted(at, NO_ID));
		this.scheduled = WAITING.formatted(tables.task(), select,
				SCHEDULED_RANGE.formatted(at, new UUID(-1, -1)));
		this.running = RUNNING.formatted(select, at, OrderedKeys.HELD);
		this.held = HELD.formatted(select, OrderedKeys.HELD);
		this.batches = BATCHES.formatted(tables.batch(), tables.task(), tables.deadTask());
		this.findOne = COLUMNS.formatted(ONE.formatted(tables.task()), ONE_PAYLOAD, PAYLOAD_LENGTH,
				"octet_length(last_error)").strip() + " WHERE id = :id";
		this.deadSelect = DEAD_COLUMNS.formatted(tables.deadTask(), LIST_PAYLOAD, NO_LENGTH, NO_LENGTH).strip();
		this.findDead = DEAD_COLUMNS.formatted(ONE.formatted(tables.deadTask()), ONE_PAYLOAD, PAYLOAD_LENGTH,
				"octet_length(error)").strip() + " WHERE id = :id";
		this.deadQueue = "SELECT queue FROM " + tables.deadTask() + " WHERE id = :id";
		this.deadTable = tables.deadTask();
		this.taskTable = tables.task();
		this.taskSelect = select;
		String found = FOUND_TASK.formatted(tables.task(), OrderedKeys.HELD, TASK_STATE.formatted(OrderedKeys.HELD),
				TASK_AT).strip();
		String byId = SEARCH_ID.formatted(found.formatted(1, "id", "0"), found.formatted(5, "batch", "0"),
				tables.deadTask(), tables.history());
		String[] keys = { found.formatted(2, "unique key", "0"), found.formatted(3, "ordering key", "0"),
				found.formatted(4, "ordering key", "t.ordering_seq") };
		String stored = SEARCH_STORED_KEYS.formatted(tables.deadTask(), tables.history()).stripTrailing();
		this.searchKeys = SEARCH_KEYS.formatted(tables.task(), OrderedKeys.HELD, keys[0], keys[1], keys[2],
				stored);
		this.searchAll = SEARCH_KEYS.formatted(tables.task(), OrderedKeys.HELD, keys[0], keys[1], keys[2],
				stored + "\n" + byId);
	}

	/** Now on the database clock, which every time a page shows is on. */
	Instant now() {
		return this.jdbc.sql("SELECT now()").query(OffsetDateTime.class).single().toInstant();
	}

	/**
	 * Tasks whose id, unique key, ordering key or batch id is {@code text}: waiting, held and running tasks, dead
	 * letters and tasks in the history (completed or cancelled) by any of them. At most
	 * {@code limit} rows, by what matched (id, unique key, ordering key, batch), then time, each part read on an
	 * index: the cost does not grow with the tables.
	 */
	List<Found> search(String text, int limit) {
		UUID id = uuid(text);
		List<Found> found = this.transactions.execute((status) -> {
			this.jdbc.sql(NO_JIT).update();
			JdbcClient.StatementSpec statement = this.jdbc.sql((id != null) ? this.searchAll : this.searchKeys)
				.param("key", text)
				.param("limit", limit);
			if (id != null) {
				statement = statement.param("id", id);
			}
			return statement.query((rs, row) -> new Found(rs.getObject("id", UUID.class), rs.getString("queue"),
					rs.getString("state"), rs.getString("matched"), instant(rs, "at"), rs.getString("key")))
				.list();
		});
		return (found != null) ? found : List.of();
	}

	/** The statement {@link #search} runs for {@code text}, for tests that read its plan. */
	String searchStatement(String text) {
		return (uuid(text) != null) ? this.searchAll : this.searchKeys;
	}

	private static @Nullable UUID uuid(String text) {
		try {
			return (text.length() == 36) ? UUID.fromString(text) : null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/**
	 * A task a search found.
	 *
	 * @param id the task's id
	 * @param queue its queue
	 * @param state {@code ready}, {@code scheduled}, {@code held}, {@code running}, {@code dead}, {@code completed}
	 * or {@code cancelled}
	 * @param matched what matched the text: {@code id}, {@code unique key}, {@code ordering key} or {@code batch}
	 * @param at when it is due (or was claimed, when running), failed, or completed
	 * @param key its unique or ordering key, if it has one (dead letters and history rows moved before schema V21
	 * have none)
	 */
	record Found(UUID id, String queue, String state, String matched, Instant at, @Nullable String key) {
	}

	/**
	 * Ready tasks of {@code queue} in the order they will be claimed.
	 * @param after the last task of the page before, or {@code null} for the first page
	 */
	List<TaskView> ready(String queue, @Nullable Keyset after, int limit) {
		return waiting(this.ready, queue, after, limit);
	}

	/** Tasks of {@code queue} due later (delayed or waiting to retry), in claim order. */
	List<TaskView> scheduled(String queue, @Nullable Keyset after, int limit) {
		return waiting(this.scheduled, queue, after, limit);
	}

	private List<TaskView> waiting(String sql, String queue, @Nullable Keyset after, int limit) {
		List<TaskView> page = this.transactions.execute((status) -> {
			this.jdbc.sql(NO_JIT).update();
			return this.jdbc.sql(sql).params(waitingParams(queue, after, limit)).query(DashboardQueries::task).list();
		});
		return (page != null) ? page : List.of();
	}

	static Map<String, Object> waitingParams(String queue, @Nullable Keyset after, int limit) {
		return Map.of("queue", queue, "limit", limit, "priority", (after != null) ? after.priority() : Integer.MAX_VALUE,
				"micros", (after != null) ? after.micros() : FIRST_MICROS, "id", (after != null) ? after.id() : NO_ID,
				"preview", LIST_PREVIEW);
	}

	/** The statement of {@link #ready} or {@link #scheduled}, for tests that read its plan. */
	String waitingStatement(boolean scheduled) {
		return scheduled ? this.scheduled : this.ready;
	}

	/**
	 * Running tasks of {@code queue}, longest running first.
	 * @param after the claim time and id of the last task of the page before, or {@code null} for the first page
	 */
	List<TaskView> running(String queue, @Nullable Keyset after, int limit) {
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
	List<TaskView> held(String queue, @Nullable String afterKey, long afterSeq, int limit) {
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
	List<BatchProgress> batches(int open, int finished, int cap) {
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
	Optional<TaskView> find(UUID id) {
		return this.jdbc.sql(this.findOne)
			.param("id", id)
			.param("preview", PAGE_PREVIEW)
			.query(DashboardQueries::task)
			.optional()
			.map((task) -> task.withAttempts(AttemptLog.read(this.jdbc, this.taskTable, id)));
	}

	/**
	 * The dead task {@code id}, if there is one, with the first {@link #PAGE_PREVIEW} characters of its payload and
	 * error, and their whole lengths.
	 */
	Optional<DeadTaskView> findDead(UUID id) {
		return this.jdbc.sql(this.findDead)
			.param("id", id)
			.param("preview", PAGE_PREVIEW)
			.query((rs, row) -> {
				DeadTask task = deadTask(rs, row);
				return new DeadTaskView(task, cut(task.payload(), rs.getLong("payload_bytes")),
						cut(task.error(), rs.getLong("error_bytes")));
			})
			.optional()
			.map((view) -> new DeadTaskView(withLog(view.task(), AttemptLog.read(this.jdbc, this.deadTable, id)),
					view.payloadBytes(), view.errorBytes()));
	}

	/** The queue of the dead task {@code id}, if there is one: no payload read to tell an action where it goes. */
	Optional<String> deadQueue(UUID id) {
		return this.jdbc.sql(this.deadQueue).param("id", id).query(String.class).optional();
	}

	/**
	 * Dead tasks, newest first.
	 * @param queue only this queue's, or {@code null}
	 * @param text only those whose error contains this text, ignoring case, or {@code null}
	 * @param from only those that failed at this time or later, or {@code null}
	 * @param before only those that failed before this time, or {@code null}
	 * @param after the failure time and id of the last task of the page before, or {@code null} for the first page
	 */
	List<DeadTask> deadTasks(@Nullable String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before, @Nullable Keyset after, int limit) {
		// Only fixed fragments make up the statement, the same as a bulk action's; values are parameters.
		String conditions = DeadTaskRepository.matching(queue, text, from, before);
		if (after != null) {
			conditions += " AND (failed_at, id) < (" + AT.formatted(":micros") + ", :id)";
		}
		JdbcClient.StatementSpec statement = DeadTaskRepository.bindMatching(
				this.jdbc.sql(this.deadSelect + " WHERE " + conditions + DEAD_ORDER), queue, text, from, before)
			.param("limit", limit)
			.param("preview", LIST_PREVIEW);
		if (after != null) {
			statement = statement.param("micros", after.micros()).param("id", after.id());
		}
		return statement.query(DashboardQueries::deadTask).list();
	}

	/**
	 * How many dead tasks match, counted up to {@code cap} (then {@code cap}): what a bulk action's confirmation
	 * says it will take, without counting a million rows.
	 */
	long countDead(@Nullable String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before, int cap) {
		return DeadTaskRepository.bindMatching(this.jdbc.sql("SELECT count(*) FROM (SELECT 1 FROM " + this.deadTable
				+ " WHERE " + DeadTaskRepository.matching(queue, text, from, before) + " LIMIT :cap) c"), queue, text,
				from, before)
			.param("cap", cap)
			.query(Long.class)
			.single();
	}

	/**
	 * The first {@code limit} waiting tasks after {@code after} that match a bulk action's filter (QueueRepository),
	 * in id order, on the primary key: the order a bulk action takes them in.
	 * @param text only those whose last error contains this text, ignoring case, or {@code null}
	 * @param from only those that last failed at this time or later, or {@code null}
	 * @param before only those that last failed before this time, or {@code null}
	 * @param after the id of the last task of the page before, or {@code null} for the first page
	 */
	List<TaskView> waitingMatching(String queue, @Nullable String text, @Nullable Instant from,
			@Nullable Instant before, @Nullable UUID after, int limit) {
		return QueueRepository.bindMatching(this.jdbc.sql(this.taskSelect + " WHERE "
				+ QueueRepository.matchingWaiting(queue, text, from, before) + " AND id > :after"
				+ " ORDER BY id LIMIT :limit"), queue, text, from, before)
			.param("after", (after != null) ? after : new UUID(0, 0))
			.param("limit", limit)
			.param("preview", LIST_PREVIEW)
			.query(DashboardQueries::task)
			.list();
	}

	/**
	 * How many waiting tasks ({@code running false}) or running ones match a bulk action's filter, counted up to
	 * {@code cap}: what its confirmation says it takes, and leaves alone.
	 */
	long countWaiting(String queue, @Nullable String text, @Nullable Instant from, @Nullable Instant before,
			boolean running, int cap) {
		String conditions = running ? QueueRepository.matchingRunning(queue, text, from, before)
				: QueueRepository.matchingWaiting(queue, text, from, before);
		return QueueRepository.bindMatching(this.jdbc.sql("SELECT count(*) FROM (SELECT 1 FROM " + this.taskTable + " WHERE "
				+ conditions + " LIMIT :cap) c"), queue, text, from, before)
			.param("cap", cap)
			.query(Long.class)
			.single();
	}

	private static TaskView task(ResultSet rs, int row) throws SQLException {
		OffsetDateTime claimedAt = rs.getObject("claimed_at", OffsetDateTime.class);
		return new TaskView(rs.getObject("id", UUID.class), rs.getString("queue"), rs.getString("payload"),
				rs.getInt("priority"), instant(rs, "run_at"), instant(rs, "enqueued_at"), rs.getInt("attempt"),
				rs.getObject("claimed_by", UUID.class), (claimedAt != null) ? claimedAt.toInstant() : null,
				rs.getString("last_error"), rs.getString("unique_key"), rs.getString("ordering_key"),
				rs.getObject("ordering_seq", Long.class), rs.getString("fairness_key"), cut(rs.getString("payload"), rs.getLong("payload_bytes")),
				cut(rs.getString("last_error"), rs.getLong("error_bytes")), List.of());
	}

	/**
	 * {@code bytes}, the whole text's length, when {@code read} is only its start; 0 when it is all of it, or the
	 * length was not read. Decided here, before a TaskRedactor changes the text.
	 */
	private static long cut(@Nullable String read, long bytes) {
		return (read != null && bytes > read.getBytes(StandardCharsets.UTF_8).length) ? bytes : 0;
	}

	private static DeadTask withLog(DeadTask task, List<DeadTask.Attempt> log) {
		return new DeadTask(task.id(), task.queue(), task.priority(), task.attempts(), task.enqueuedAt(),
				task.failedAt(), task.payload(), task.error(), log, task.fairnessKey());
	}

	private static DeadTask deadTask(ResultSet rs, int row) throws SQLException {
		return new DeadTask(rs.getObject("id", UUID.class), rs.getString("queue"), rs.getInt("priority"),
				rs.getInt("attempts"), instant(rs, "enqueued_at"), instant(rs, "failed_at"), rs.getString("payload"),
				rs.getString("error"), List.of(), rs.getString("fairness_key"));
	}

	private static Instant instant(ResultSet rs, String column) throws SQLException {
		return rs.getObject(column, OffsetDateTime.class).toInstant();
	}

}
