package dev.taskqueue.internal.operations;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskQueueOperations.WorkerSessionInfo;
import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Reads what the queues hold and which sessions are alive, for metrics, health and operators. The queue statistics
 * are one statement whose cost does not grow with the backlog (see {@link #STATS}).
 */
final class QueueStatsRepository {

	/*
	 * Every read is an index range scan, bounded by :limit rows, on the partial index that serves the claim
	 * (queue, bucket, priority DESC, run_at, id WHERE claimed_by IS NULL):
	 * - the queues with waiting tasks, each queue's buckets (one, 0, unless the queue is hash-sharded) and each
	 *   bucket's priorities are found by skipping through the index, one probe per distinct value (a GROUP BY would
	 *   read every waiting row);
	 * - within one (queue, bucket, priority) the ready rows (run_at <= now()) and the scheduled ones are two contiguous
	 *   ranges, counted up to :limit; the LIMIT inside the LATERAL keeps the planner from turning the ranges into
	 *   one filtered scan of the whole queue;
	 * - the oldest ready task is the first row of one of those ranges.
	 * Tasks held behind their ordering key (claimed_by is the nil UUID, see jdbc/OrderedKeys) are counted the same way on
	 * their own index, taskqueue_task_ordering_held_idx; running tasks exclude them ("> nil": the nil UUID sorts
	 * first). Running tasks are bounded by the instances' concurrency; dead letters are counted up to :limit on their
	 * (queue, failed_at) index; so are the tasks waiting for prerequisites, on taskqueue_waiting_task's
	 * (queue, enqueued_at) index, which is empty unless tasks use dependencies. docs/internals.md has the figures.
	 * The planner cannot estimate the recursive parts and guesses costs high enough to JIT-compile the statement,
	 * which then takes over a second to compile: NO_JIT switches that off for the transaction.
	 */
	private static final String STATS = """
			WITH RECURSIVE
			waiting_queues AS (%5$s),
			buckets AS (
			    SELECT w.queue, (SELECT min(t.bucket) FROM %1$s t
			                     WHERE t.claimed_by IS NULL AND t.queue = w.queue) AS bucket
			    FROM waiting_queues w WHERE w.queue IS NOT NULL
			    UNION ALL
			    SELECT b.queue, (SELECT min(t.bucket) FROM %1$s t
			                     WHERE t.claimed_by IS NULL AND t.queue = b.queue AND t.bucket > b.bucket)
			    FROM buckets b WHERE b.bucket IS NOT NULL),
			priorities AS (
			    SELECT b.queue, b.bucket, (SELECT max(t.priority) FROM %1$s t
			                               WHERE t.claimed_by IS NULL AND t.queue = b.queue AND t.bucket = b.bucket)
			                              AS priority
			    FROM buckets b WHERE b.bucket IS NOT NULL
			    UNION ALL
			    SELECT p.queue, p.bucket, (SELECT max(t.priority) FROM %1$s t
			                               WHERE t.claimed_by IS NULL AND t.queue = p.queue AND t.bucket = p.bucket
			                                 AND t.priority < p.priority)
			    FROM priorities p WHERE p.priority IS NOT NULL),
			waiting AS (
			    SELECT w.queue,
			           (SELECT count(*) FROM (SELECT FROM priorities p CROSS JOIN LATERAL (
			                SELECT FROM %1$s t WHERE t.claimed_by IS NULL AND t.queue = p.queue AND t.bucket = p.bucket
			                  AND t.priority = p.priority AND t.run_at <= now() LIMIT :limit) r
			            WHERE p.queue = w.queue LIMIT :limit) c) AS ready,
			           (SELECT count(*) FROM (SELECT FROM priorities p CROSS JOIN LATERAL (
			                SELECT FROM %1$s t WHERE t.claimed_by IS NULL AND t.queue = p.queue AND t.bucket = p.bucket
			                  AND t.priority = p.priority AND t.run_at > now() LIMIT :limit) s
			            WHERE p.queue = w.queue LIMIT :limit) c) AS scheduled,
			           (SELECT min((SELECT t.run_at FROM %1$s t WHERE t.claimed_by IS NULL AND t.queue = p.queue
			                        AND t.bucket = p.bucket AND t.priority = p.priority ORDER BY t.run_at LIMIT 1))
			            FROM priorities p WHERE p.queue = w.queue) AS first_run_at
			    FROM waiting_queues w WHERE w.queue IS NOT NULL),
			running AS (
			    SELECT queue, count(*) AS running FROM %1$s
			    WHERE claimed_by > uuid '00000000-0000-0000-0000-000000000000'%6$s GROUP BY queue),
			held_queues AS (%7$s),
			held AS (
			    SELECT h.queue, (SELECT count(*) FROM (SELECT FROM %1$s t
			                     WHERE t.claimed_by = uuid '00000000-0000-0000-0000-000000000000'
			                       AND t.queue = h.queue LIMIT :limit) c) AS held
			    FROM held_queues h WHERE h.queue IS NOT NULL),
			dead_queues AS (%8$s),
			dead AS (
			    SELECT q.queue,
			           (SELECT count(*) FROM (SELECT FROM %2$s d WHERE d.queue = q.queue LIMIT :limit) c) AS dead
			    FROM dead_queues q WHERE q.queue IS NOT NULL),
			dependent_queues AS (%9$s),
			dependents AS (
			    SELECT q.queue,
			           (SELECT count(*) FROM (SELECT FROM %4$s w WHERE w.queue = q.queue LIMIT :limit) c) AS dependents
			    FROM dependent_queues q WHERE q.queue IS NOT NULL),
			paused AS (
			    SELECT name AS queue FROM %3$s WHERE paused%10$s)
			SELECT queue, coalesce(w.ready, 0) AS ready, coalesce(w.scheduled, 0) AS scheduled,
			       coalesce(r.running, 0) AS running, coalesce(d.dead, 0) AS dead,
			       CASE WHEN w.first_run_at <= now()
			            THEN (extract(epoch FROM now() - w.first_run_at) * 1000000)::bigint
			            ELSE 0 END AS oldest_ready_micros,
			       p.queue IS NOT NULL AS paused, coalesce(k.held, 0) AS held, coalesce(n.dependents, 0) AS dependents
			FROM waiting w FULL JOIN running r USING (queue) FULL JOIN dead d USING (queue)
			     FULL JOIN paused p USING (queue) FULL JOIN held k USING (queue) FULL JOIN dependents n USING (queue)
			ORDER BY queue
			""";

	// The queues STATS reports on, all: each CTE of queues finds those its table has by skipping through an index
	// whose first column is the queue (%1$s the table, %2$s a condition of its rows, %3$s the CTE).
	private static final String ALL_QUEUES = """

			    SELECT min(queue) AS queue FROM %1$s WHERE %2$s
			    UNION ALL
			    SELECT (SELECT min(t.queue) FROM %1$s t WHERE %2$s AND t.queue > q.queue)
			    FROM %3$s q WHERE q.queue IS NOT NULL""";

	// Or one: a queue's page shows only its own statistics, so it counts no other queue's tasks.
	private static final String ONE_QUEUE = "SELECT CAST(:queue AS text) AS queue";

	private static final String NO_JIT = """
			SET LOCAL jit = off
			""";

	private static final String SESSIONS = """
			SELECT s.id, s.name, s.started_at, s.heartbeat_at,
			       (extract(epoch FROM now() - s.heartbeat_at) * 1000000)::bigint AS heartbeat_age_micros,
			       (SELECT count(*) FROM %2$s t WHERE t.claimed_by = s.id) AS running
			FROM %1$s s ORDER BY s.started_at, s.id
			""";

	// The queues the live instances have handlers for (V11). "Live" as for sessions(): in the table, which every
	// instance's heartbeat clears of sessions silent for longer than the session timeout. A handful of rows.
	private static final String HANDLED_QUEUES = """
			SELECT DISTINCT unnest(queues) FROM %1$s
			""";

	private final JdbcClient jdbc;

	private final String stats;

	private final String queueStats;

	private final String sessions;

	private final String handledQueues;

	QueueStatsRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.stats = STATS.formatted(tables.task(), tables.deadTask(), tables.queue(), tables.waitingTask(),
				ALL_QUEUES.formatted(tables.task(), "claimed_by IS NULL", "waiting_queues"), "",
				ALL_QUEUES.formatted(tables.task(), "claimed_by = uuid '00000000-0000-0000-0000-000000000000'",
						"held_queues"),
				ALL_QUEUES.formatted(tables.deadTask(), "true", "dead_queues"),
				ALL_QUEUES.formatted(tables.waitingTask(), "true", "dependent_queues"), "");
		this.queueStats = STATS.formatted(tables.task(), tables.deadTask(), tables.queue(), tables.waitingTask(),
				ONE_QUEUE, " AND queue = :queue", ONE_QUEUE, ONE_QUEUE, ONE_QUEUE, " AND name = :queue");
		this.sessions = SESSIONS.formatted(tables.session(), tables.task());
		this.handledQueues = HANDLED_QUEUES.formatted(tables.session());
	}

	/**
	 * What each queue with tasks, dead tasks or a pause holds, by queue name. Call it in a transaction, which it
	 * changes to plan without JIT compilation.
	 * @param limit the count at which counting stops
	 */
	List<QueueStats> stats(int limit) {
		this.jdbc.sql(NO_JIT).update();
		return this.jdbc.sql(this.stats).param("limit", limit).query(QueueStatsRepository::queueStats).list();
	}

	/**
	 * What {@code queue} holds, as {@link #stats} reports it, reading none of the other queues' rows; {@code null}
	 * when it holds nothing (no task, dead task, waiting dependent or pause). Call it in a transaction.
	 * @param limit the count at which counting stops
	 */
	@Nullable QueueStats stats(String queue, int limit) {
		this.jdbc.sql(NO_JIT).update();
		return this.jdbc.sql(this.queueStats)
			.param("queue", queue)
			.param("limit", limit)
			.query(QueueStatsRepository::queueStats)
			.stream()
			.filter((stats) -> stats.hasWaitingTasks() || stats.running() > 0 || stats.dead() > 0 || stats.paused())
			.findFirst()
			.orElse(null);
	}

	/** The sessions in the table, oldest first. */
	List<WorkerSessionInfo> sessions() {
		return this.jdbc.sql(this.sessions).query(QueueStatsRepository::session).list();
	}

	/** The queues that the instances with a session in the table have handlers for. */
	Set<String> handledQueues() {
		return Set.copyOf(this.jdbc.sql(this.handledQueues).query(String.class).list());
	}

	private static QueueStats queueStats(ResultSet rs, int row) throws SQLException {
		return new QueueStats(rs.getString("queue"), rs.getLong("ready"), rs.getLong("scheduled"),
				rs.getLong("running"), rs.getLong("dead"), micros(rs.getLong("oldest_ready_micros")),
				rs.getBoolean("paused"), rs.getLong("held"), null, false, rs.getLong("dependents"));
	}

	private static WorkerSessionInfo session(ResultSet rs, int row) throws SQLException {
		return new WorkerSessionInfo(rs.getObject("id", UUID.class), rs.getString("name"),
				rs.getTimestamp("started_at").toInstant(), rs.getTimestamp("heartbeat_at").toInstant(),
				micros(rs.getLong("heartbeat_age_micros")), rs.getLong("running"));
	}

	private static Duration micros(long micros) {
		return Duration.ofNanos(Math.max(0, micros) * 1000);
	}

}
