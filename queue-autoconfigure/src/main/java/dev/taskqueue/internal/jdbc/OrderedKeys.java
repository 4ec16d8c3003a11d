package dev.taskqueue.internal.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

import dev.taskqueue.EnqueueResult;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The statements of ordered keys (V4, docs/ordered-keys.md): the inserts of tasks with an ordering key, the step
 * that makes the next task of a key its head, and the sweep that finds keys left without a head.
 * <p>
 * Of the tasks of a key, the head waits, runs or waits to retry like any task; the others are held: their
 * {@code claimed_by} is {@link #HELD}, which keeps them out of the claim's index, so the claim never reads them and
 * its statement is the one of tasks without keys. The statement that deletes a head (completion, dead letter,
 * cancel) makes the next held task of its key the head, with {@link #PROMOTE}; only statements that delete a task
 * with a key carry it.
 * <p>
 * One race is left to {@link #promoteOrphans}: a task inserted as held by a transaction that commits after the head
 * it waited for was deleted is invisible to that deletion's promotion, and its key has no head. The sweep runs with
 * every heartbeat; meanwhile an enqueue that sees such a held task inserts behind it, never as a head.
 */
public final class OrderedKeys {

	/** The {@code claimed_by} of a held task: a session id no session has; the nil UUID sorts before all others. */
	public static final String HELD = "uuid '00000000-0000-0000-0000-000000000000'";

	// The predicate of taskqueue_task_ordering_head_idx, as ON CONFLICT must name it.
	private static final String HEAD = headOf("");

	private static final String RUN_AT = """
			COALESCE(timestamptz 'epoch' + %s * interval '1 microsecond', now() + %s * interval '1 microsecond')""";

	// Makes the first held task of each key in the CTE %2$s (queue, ordering_key, claimed_by) the key's head, for
	// the rows of %2$s that were heads (a cancelled held task leaves its key's head in place). A CTE of the
	// statement that deletes the old head, so both commit together. The new head is due at once (or at its own
	// later due time) and goes behind the tasks already due of its priority, as a task enqueued now would: a claim
	// that starts where the previous one ended sees it. The claimed_by check skips a task changed meanwhile; it is
	// IS NOT DISTINCT FROM, not =, so that no plan can read the whole held index for it (= matches that index's
	// predicate, and with stale statistics the planner ANDed a scan of every held task with the primary key: 23 ms
	// instead of 0.1 per completion, measured in W6). NEXT_HELD is that WHERE, shared with HAND_OFF; %3$s is HELD.
	private static final String NEXT_HELD = """
			    WHERE p.claimed_by IS NOT DISTINCT FROM %3$s AND p.id = ANY(ARRAY(
			        SELECT (SELECT h.id FROM %1$s h
			                WHERE h.queue = d.queue AND h.ordering_key = d.ordering_key AND h.claimed_by = %3$s
			                ORDER BY h.ordering_seq LIMIT 1)
			        FROM %2$s d WHERE d.ordering_key IS NOT NULL AND d.claimed_by IS DISTINCT FROM %3$s))
			""";

	static final String PROMOTE = """
			promoted AS (
			    UPDATE %1$s p SET claimed_by = NULL, run_at = greatest(p.run_at, now())
			""" + NEXT_HELD + """
			    RETURNING p.id)
			""";

	// PROMOTE that also claims the new head for the session that completed the old one (a hand-off): one row
	// version less than a promotion followed by a claim, which is what makes ordered keys cost little more than no
	// keys. Only a head that is due, of the queue :queue, and only when :session is not null (the worker says when it
	// may take more: running, queue not paused, no cluster-wide limit, which a hand-off would bypass); other heads
	// are promoted as PROMOTE does. The attempt is counted as a claim counts it. Returns the claimed columns of
	// TaskClaims' claims, the times as the driver's claims return them (%5$s to %7$s). %4$s is TAKEN.
	// Parameters: 1 queue, 2 session.
	static final String HAND_OFF = """
			hand_off AS (SELECT CAST(? AS text) AS queue, CAST(? AS uuid) AS session),
			promoted AS (
			    UPDATE %1$s p SET claimed_by = CASE WHEN %4$s THEN (SELECT session FROM hand_off) END,
			           claimed_at = CASE WHEN %4$s THEN now() END,
			           attempt = p.attempt + CASE WHEN %4$s THEN 1 ELSE 0 END,
			           run_at = greatest(p.run_at, now())
			""" + NEXT_HELD + """
			    RETURNING p.id, p.queue, p.payload::text AS payload, p.priority, p.attempt, %5$s AS enqueued_at,
			              %6$s AS run_at, %7$s AS claimed_at, p.claimed_by, p.last_error, p.headers::text AS headers,
			              p.ordering_key, p.bucket)
			""";

	// Whether HAND_OFF takes a new head for the claiming session.
	private static final String TAKEN = "p.run_at <= now() AND p.queue = (SELECT queue FROM hand_off) "
			+ "AND (SELECT session FROM hand_off) IS NOT NULL";

	// One task: the head when no task of the key is held and no head exists (the unique index waits for an
	// uncommitted head and then skips), held otherwise. "held" inserts only when "head" inserted nothing. %5$s is HEAD,
	// %6$s HELD, in OFFER_ALL too.
	private static final String OFFER = """
			WITH head AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket, ordering_key, ordering_seq)
			    SELECT :id, :queue, CAST(:payload AS jsonb), :priority, %3$s, CAST(:headers AS jsonb), :bucket, :key,
			           nextval('%2$s')
			    WHERE NOT EXISTS (SELECT 1 FROM %1$s WHERE queue = :queue AND ordering_key = :key AND claimed_by = %6$s)
			    ON CONFLICT (queue, ordering_key) WHERE %5$s DO NOTHING
			    RETURNING id, queue),
			held AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket, ordering_key, ordering_seq,
			                      claimed_by)
			    SELECT :id, :queue, CAST(:payload AS jsonb), :priority, %3$s, CAST(:headers AS jsonb), :bucket, :key,
			           nextval('%2$s'), %6$s
			    WHERE NOT EXISTS (SELECT 1 FROM head)
			    RETURNING id)
			SELECT (SELECT count(*) FROM held) AS held%4$s
			""";

	// Many tasks. The sequence is taken in list order ("input" scans the arrays in order), so a key repeated in the
	// list keeps the list's order. Only the first task of each key can be a head; "first" is sorted by key, so two
	// lists with the same keys meet in the unique index in the same order and cannot deadlock.
	private static final String OFFER_ALL = """
			WITH input AS MATERIALIZED (
			    SELECT t.*, nextval('%2$s') AS seq
			    FROM unnest(:ids, :queues, :payloads, :priorities, :runAtMicros, :delayMicros, :headers, :buckets, :keys)
			         WITH ORDINALITY
			         AS t(id, queue, payload, priority, run_at_micros, delay_micros, headers, bucket, key, ord)),
			first AS (
			    SELECT DISTINCT ON (queue, key) * FROM input ORDER BY queue, key, ord),
			head AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket, ordering_key, ordering_seq)
			    SELECT f.id, f.queue, CAST(f.payload AS jsonb), f.priority, %3$s, CAST(f.headers AS jsonb), f.bucket,
			           f.key, f.seq
			    FROM first f
			    WHERE NOT EXISTS (SELECT 1 FROM %1$s h
			                      WHERE h.queue = f.queue AND h.ordering_key = f.key AND h.claimed_by = %6$s)
			    ORDER BY f.queue, f.key
			    ON CONFLICT (queue, ordering_key) WHERE %5$s DO NOTHING
			    RETURNING id, queue),
			held AS (
			    INSERT INTO %1$s (id, queue, payload, priority, run_at, headers, bucket, ordering_key, ordering_seq,
			                      claimed_by)
			    SELECT f.id, f.queue, CAST(f.payload AS jsonb), f.priority, %3$s, CAST(f.headers AS jsonb), f.bucket,
			           f.key, f.seq, %6$s
			    FROM input f WHERE f.id <> ALL(ARRAY(SELECT id FROM head))
			    RETURNING id)
			SELECT (SELECT count(*) FROM held) AS held%4$s
			""";

	// The wake-up, sent only for heads: a held task cannot be claimed.
	private static final String NOTIFIED = """
			,
			       (SELECT count(*) FROM (SELECT pg_notify(:channel, queue) FROM head) sent) AS notified""";

	// Up to :keys keys with held tasks after (:afterQueue, :afterKey), one index probe each (a loose index scan);
	// those without a head get their first held task promoted (%2$s, PROMOTE of "orphans"). Returns the keys' last
	// one, to go on from next time. %3$s is HELD, %4$s the predicate of a head x.
	private static final String PROMOTE_ORPHANS = """
			WITH RECURSIVE held_keys AS (
			    (SELECT queue, ordering_key FROM %1$s
			     WHERE claimed_by = %3$s AND (queue, ordering_key) > (:afterQueue, :afterKey)
			     ORDER BY queue, ordering_key LIMIT 1)
			    UNION ALL
			    SELECT n.queue, n.ordering_key FROM held_keys k CROSS JOIN LATERAL (
			        SELECT t.queue, t.ordering_key FROM %1$s t
			        WHERE t.claimed_by = %3$s AND (t.queue, t.ordering_key) > (k.queue, k.ordering_key)
			        ORDER BY t.queue, t.ordering_key LIMIT 1) n),
			scanned AS MATERIALIZED (
			    SELECT queue, ordering_key, row_number() OVER () AS n FROM (SELECT * FROM held_keys LIMIT :keys) k),
			orphans AS (
			    SELECT s.queue, s.ordering_key, NULL::uuid AS claimed_by FROM scanned s
			    WHERE NOT EXISTS (SELECT 1 FROM %1$s x
			                      WHERE x.queue = s.queue AND x.ordering_key = s.ordering_key AND %4$s)),
			%2$s
			SELECT s.queue, s.ordering_key, s.n, (SELECT count(*) FROM promoted) AS promoted
			FROM scanned s ORDER BY s.n DESC LIMIT 1
			""";

	private final JdbcClient jdbc;

	private final @Nullable String notifyChannel;

	private final String offer;

	private final String offerAll;

	private final String promoteOrphans;

	private String afterQueue = "";

	private String afterKey = "";

	private final TaskBuckets buckets;

	OrderedKeys(JdbcClient jdbc, TaskTables tables, @Nullable String notifyChannel, TaskBuckets buckets) {
		this.jdbc = jdbc;
		this.buckets = buckets;
		this.notifyChannel = notifyChannel;
		String notified = (notifyChannel != null) ? NOTIFIED : "";
		this.offer = OFFER.formatted(tables.task(), tables.orderingSequence(),
				RUN_AT.formatted("CAST(:runAtMicros AS bigint)", ":delayMicros"), notified, HEAD, HELD);
		this.offerAll = OFFER_ALL.formatted(tables.task(), tables.orderingSequence(),
				RUN_AT.formatted("f.run_at_micros", "f.delay_micros"), notified, HEAD, HELD);
		this.promoteOrphans = PROMOTE_ORPHANS.formatted(tables.task(), promote(tables, "orphans").stripTrailing(), HELD,
				head("x"));
	}

	/** The sweep of {@link #promoteOrphans} alone: inserts nothing. */
	public static OrderedKeys sweep(JdbcClient jdbc, TaskTables tables) {
		return new OrderedKeys(jdbc, tables, null, TaskBuckets.NONE);
	}

	/** The predicate of taskqueue_task_ordering_head_idx on the task table as {@code alias}, for a probe of that index. */
	public static String head(String alias) {
		return headOf(alias + ".");
	}

	/** The predicate of a head, with its columns named {@code prefix} and their name. */
	private static String headOf(String prefix) {
		return prefix + "ordering_key IS NOT NULL AND " + prefix + "claimed_by IS DISTINCT FROM " + HELD;
	}

	/** {@link #PROMOTE} for the task table, promoting the keys of CTE {@code source}. */
	public static String promote(TaskTables tables, String source) {
		return PROMOTE.formatted(tables.task(), source, HELD);
	}

	/**
	 * {@link #HAND_OFF} for the task table, promoting the keys of CTE {@code source}; the times of the tasks it claims
	 * as the database's claims return them ({@code claimedTime} of a column, the worker's
	 * {@code StorageDriver.claimedTime}), as it is read with them.
	 */
	public static String handOff(TaskTables tables, String source, UnaryOperator<String> claimedTime) {
		return HAND_OFF.formatted(tables.task(), source, HELD, TAKEN, claimedTime.apply("p.enqueued_at"),
				claimedTime.apply("p.run_at"), claimedTime.apply("p.claimed_at"));
	}

	/** Binds {@link #HAND_OFF}'s parameters from {@code first}: no hand-off when {@code session} is null. */
	public static void bindHandOff(PreparedStatement statement, int first, @Nullable String queue, @Nullable UUID session)
			throws SQLException {
		statement.setString(first, queue);
		statement.setObject(first + 1, session, Types.OTHER);
	}

	/** Inserts a task with an ordering key, as its key's head or held behind it. */
	EnqueueResult offer(NewTask task) {
		JdbcClient.StatementSpec statement = this.jdbc.sql(this.offer)
			.param("id", task.id())
			.param("queue", task.queue())
			.param("payload", task.payload())
			.param("priority", task.priority())
			.param("runAtMicros", Micros.sinceEpoch(task.runAt()), Types.BIGINT)
			.param("delayMicros", Micros.of(task.delay()), Types.BIGINT)
			.param("headers", task.headers())
			.param("bucket", this.buckets.bucketOf(task.queue(), task.id()))
			.param("key", task.orderingKey());
		run(statement);
		return new EnqueueResult(task.id(), false);
	}

	/** Inserts tasks that all have an ordering key, with one statement; a key repeated keeps the list's order. */
	List<EnqueueResult> offerAll(List<NewTask> tasks) {
		TaskRows rows = new TaskRows(tasks, this.buckets);
		String[] keys = tasks.stream().map(NewTask::orderingKey).toArray(String[]::new);
		JdbcClient.StatementSpec statement = this.jdbc.sql(this.offerAll)
			.param("ids", new SqlArrayValue("uuid", (Object[]) rows.ids))
			.param("queues", new SqlArrayValue("text", (Object[]) rows.queues))
			.param("payloads", new SqlArrayValue("text", (Object[]) rows.payloads))
			.param("priorities", new SqlArrayValue("int4", (Object[]) rows.priorities))
			.param("runAtMicros", new SqlArrayValue("int8", (Object[]) rows.runAtMicros))
			.param("delayMicros", new SqlArrayValue("int8", (Object[]) rows.delayMicros))
			.param("headers", new SqlArrayValue("text", (Object[]) rows.headers))
			.param("buckets", new SqlArrayValue("int2", (Object[]) rows.buckets))
			.param("keys", new SqlArrayValue("text", (Object[]) keys));
		run(statement);
		return tasks.stream().map((task) -> new EnqueueResult(task.id(), false)).toList();
	}

	private void run(JdbcClient.StatementSpec statement) {
		if (this.notifyChannel != null) {
			statement = statement.param("channel", this.notifyChannel);
		}
		statement.query((rs, row) -> null).list();
	}

	/**
	 * Gives a head to keys that have held tasks and none, looking at up to {@code keys} keys after the last one the
	 * previous call looked at, and starting over after the last key.
	 * @return how many tasks were made heads
	 */
	public synchronized int promoteOrphans(int keys) {
		record Scanned(String queue, String key, long n, int promoted) {
		}
		List<Scanned> last = this.jdbc.sql(this.promoteOrphans)
			.param("afterQueue", this.afterQueue)
			.param("afterKey", this.afterKey)
			.param("keys", keys)
			.query((rs, row) -> new Scanned(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getInt(4)))
			.list();
		if (last.isEmpty() || last.get(0).n() < keys) {
			this.afterQueue = "";
			this.afterKey = "";
			return last.isEmpty() ? 0 : last.get(0).promoted();
		}
		this.afterQueue = last.get(0).queue();
		this.afterKey = last.get(0).key();
		return last.get(0).promoted();
	}

}
