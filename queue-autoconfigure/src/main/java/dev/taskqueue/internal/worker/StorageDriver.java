package dev.taskqueue.internal.worker;

import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.TaskTables;

/**
 * The SQL that is not the same on every database, one driver per database (as River's {@code riverdriver} and
 * db-scheduler's {@code JdbcCustomization}), chosen once at start by {@link #of}. Each driver's statements for a
 * concern are here, written from the database-neutral parts below; a statement that is the same everywhere is not
 * here but in the repository of its concern, written once.
 * <p>
 * Today the claims differ: {@link #POSTGRESQL} (also YugabyteDB's) locks the rows a claim reads
 * {@code FOR UPDATE SKIP LOCKED}; {@link #COCKROACHDB} reads them unlocked and takes only rows still unclaimed (see
 * {@link Database#skipLockedClaims}). {@link TaskClaims} and {@link KeyStatements} build their statements, plain and
 * folded, from a driver's {@link #ready}, {@link #readyOthers}, {@link #readyAfter} and {@link #takeReady}.
 */
enum StorageDriver {

	/**
	 * PostgreSQL: each claim locks the rows it reads {@code FOR UPDATE SKIP LOCKED}, so concurrent claims pass over
	 * each other's rows and never take one twice.
	 */
	POSTGRESQL("FOR UPDATE SKIP LOCKED", "", "(extract(epoch FROM %s) * 1000000)::bigint",
			"\n  AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL"),

	/**
	 * YugabyteDB: PostgreSQL's claims, except that no claim sets {@code synchronous_commit}: its commits are made
	 * durable by Raft replication, not by PostgreSQL's WAL, so there is no flush to skip.
	 */
	YUGABYTEDB("FOR UPDATE SKIP LOCKED", "", "(extract(epoch FROM %s) * 1000000)::bigint", ""),

	/**
	 * CockroachDB: SKIP LOCKED can skip rows nobody holds (cockroachdb/cockroach#121917), so claims read unlocked
	 * and update only rows still unclaimed, as CockroachDB's queue article does: two claims of one row end in a
	 * serialization failure, run again by SerializationRetry.
	 */
	COCKROACHDB("", " AND t.claimed_by IS NULL", "%s", "");

	// The end of every claim: takes the rows its "ready" CTE read (and, with SKIP LOCKED, locked). That CTE is
	// MATERIALIZED, so the set is computed once and the UPDATE never sees more than :limit rows. The UPDATE finds them
	// by primary key (= ANY of an array, not a join): a join lets a generic plan, which guesses the LIMIT at a tenth of
	// the table, hash the whole table instead, and it is large when it is bloated. %2$s is the driver's condition on
	// the rows it takes, %3$s what the fair claim returns after the task's columns (empty for the others), %4$s to
	// %6$s the task's times as the driver returns them (#claimedTime), %7$s the driver's #asyncCommit or nothing.
	// Parameters: 1 session.
	private static final String TAKE_READY = """
			UPDATE %1$s t SET claimed_by = ?, claimed_at = now(), attempt = t.attempt + 1
			WHERE t.id = ANY(ARRAY(SELECT id FROM ready))%2$s%7$s
			RETURNING t.id, t.queue, t.payload::text AS payload, t.priority, t.attempt, %4$s AS enqueued_at,
			          %5$s AS run_at, %6$s AS claimed_at, t.claimed_by, t.last_error, t.headers::text AS headers,
			          t.ordering_key, t.bucket%3$s
			""";

	// What the fair claim's take returns after the task's columns: the key its next claim starts after, how many
	// tenants it found with due tasks (the keys it listed, and the tasks without a key if it took one) and, when it
	// listed one key, that key (the worker goes back to the plain claim while one tenant has due tasks); and the
	// task's own key, which tells the worker the tenants with little due work, whose tasks run first.
	private static final String NEXT_KEY = ",\n          (SELECT max(next_key) FROM ready) AS next_key,"
			+ " (SELECT max(tenants) FROM ready) AS tenants, (SELECT max(sole_key) FROM ready) AS sole_key,"
			+ " t.fairness_key";

	// The fair claim (docs/fairness.md), for a queue whose waiting tasks have fairness keys: round-robin across the
	// keys with due tasks, from the key after :after (the last one the previous fair claim of this instance listed),
	// wrapping around. Tasks without a key take one turn of the round as one more key, listed where the round wraps.
	// - later, earlier: a loose index scan of taskqueue_task_fair_idx (one probe per key), the keys after :after,
	//   then from the first one to :after; each is read only as far as "keys" pulls it: at most :limit + 1 entries
	//   (3 for a claim of 1), the last only to learn whether a key is due beyond the ones listed.
	// - share: each listed key's share of :limit, n = :limit / c with c the keys listed (at most :limit), at least 1,
	//   and one more for the first r = :limit % keys listed, so that the shares add up to :limit and the
	//   remainder goes round with the start; 0 when the session has expired, which then claims and locks nothing.
	// - keyed, unkeyed (picked): each listed key's first tasks in claim order, from its own range of the index, and
	//   the first tasks without a key among the bucket's :limit first ready ones (those come from the ready index,
	//   which also holds the keyed tasks: looking further would cost a heap visit per keyed task passed). Each branch
	//   locks what it takes; at most :limit rows in all, the sum of the shares.
	// - filled: when the keys had fewer than their shares, the rest of :limit from the bucket's head in claim order,
	//   whatever its key: the keys that have more get it, so a fair claim is as full as a plain one.
	// Each row carries the last key listed, for the next claim's :after ('' for the turn of the tasks without a key,
	// and when the claim starts from the first key), or NULL when no key has due tasks; the tenants with due tasks it
	// found (the keys listed, one more if it took tasks without a key) and the first key listed: with one tenant the
	// worker goes back to the plain claim (worker/FairShares). Rows are locked only when taken, as in READY.
	// Parameters: 1 queue, 2 after; 3 queue; 4 queue; 5 queue, 6 after; 7 after, 8 limit; 9 limit, 10 limit,
	// 11 limit, 12 session; 13 queue; 14 queue, 15 bucket, 16 limit; 17 queue, 18 bucket, 19 limit.
	private static final String READY_FAIR = """
			ready AS MATERIALIZED (
			    WITH RECURSIVE later(k) AS (
			        (SELECT fairness_key FROM %1$s
			         WHERE queue = ? AND fairness_key > ? AND claimed_by IS NULL AND run_at <= now()
			         ORDER BY fairness_key LIMIT 1)
			        UNION ALL
			        SELECT (SELECT t.fairness_key FROM %1$s t
			                WHERE t.queue = ? AND t.fairness_key > l.k AND t.claimed_by IS NULL AND t.run_at <= now()
			                ORDER BY t.fairness_key LIMIT 1)
			        FROM later l WHERE l.k IS NOT NULL),
			    earlier(k) AS (
			        (SELECT fairness_key FROM %1$s
			         WHERE queue = ? AND fairness_key IS NOT NULL AND claimed_by IS NULL AND run_at <= now()
			         ORDER BY fairness_key LIMIT 1)
			        UNION ALL
			        SELECT (SELECT t.fairness_key FROM %1$s t
			                WHERE t.queue = ? AND t.fairness_key > e.k AND t.claimed_by IS NULL AND t.run_at <= now()
			                ORDER BY t.fairness_key LIMIT 1)
			        FROM earlier e WHERE e.k < ?),
			    keys AS MATERIALIZED (
			        SELECT k, part, row_number() OVER () AS pos FROM (
			            SELECT k, 0 AS part FROM later WHERE k IS NOT NULL
			            UNION ALL
			            SELECT '', 1
			            UNION ALL
			            SELECT k, 2 FROM earlier WHERE k <= ?) listed
			        LIMIT greatest(?, 2) + 1),
			    share AS MATERIALIZED (
			        SELECT (? / c) * alive AS n, mod(?, c) * alive AS r, c
			        FROM (SELECT greatest(least(count(*), ?), 1) AS c,
			                     CASE WHEN EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?) THEN 1 ELSE 0 END AS alive
			              FROM keys) counted),
			    keyed AS MATERIALIZED (
			        SELECT p.id FROM keys CROSS JOIN LATERAL (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND fairness_key = keys.k AND claimed_by IS NULL AND run_at <= now()
			            ORDER BY priority DESC, run_at, id
			            LIMIT (SELECT n + CASE WHEN keys.pos <= r THEN 1 ELSE 0 END FROM share)
			            %3$s) p
			        WHERE keys.part <> 1 AND keys.pos <= (SELECT c FROM share)),
			    unkeyed AS MATERIALIZED (
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE id = ANY(ARRAY(
			                    SELECT w.id FROM (
			                        SELECT id, fairness_key FROM %1$s
			                        WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND run_at <= now()
			                        ORDER BY priority DESC, run_at, id
			                        LIMIT ?) w
			                    WHERE w.fairness_key IS NULL
			                      AND EXISTS (SELECT 1 FROM keys WHERE part = 1 AND pos <= (SELECT c FROM share))
			                    LIMIT (SELECT n + CASE WHEN (SELECT pos FROM keys WHERE part = 1) <= r THEN 1 ELSE 0 END
			                           FROM share)))
			              AND claimed_by IS NULL
			            %3$s) turn),
			    picked AS MATERIALIZED (SELECT id FROM keyed UNION ALL SELECT id FROM unkeyed),
			    filled AS MATERIALIZED (
			        SELECT id FROM %1$s
			        WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND run_at <= now()
			          AND id <> ALL(ARRAY(SELECT id FROM picked))
			        ORDER BY priority DESC, run_at, id
			        LIMIT (SELECT CASE WHEN n = 0 THEN 0 ELSE greatest(0, ? - (SELECT count(*) FROM picked)) END
			               FROM share)
			        %3$s)
			    SELECT id, (SELECT CASE WHEN EXISTS (SELECT 1 FROM keys WHERE part <> 1)
			                            THEN (SELECT k FROM keys WHERE pos <= (SELECT c FROM share)
			                                  ORDER BY pos DESC LIMIT 1) END) AS next_key,
			           (SELECT count(*) FROM keys WHERE part <> 1)
			               + (SELECT count(*) FROM (SELECT 1 FROM unkeyed LIMIT 1) one) AS tenants,
			           (SELECT min(k) FROM keys WHERE part <> 1) AS sole_key
			    FROM (SELECT id FROM picked UNION ALL SELECT id FROM filled) taken)
			""";

	// The claim of one fairness key's first tasks in claim order, from its range of taskqueue_task_fair_idx: the tasks
	// of a key that showed up beside the one key a queue claims in its order (worker/FairShares). A statement as
	// small as READY, planned as cheaply: it runs for each such key.
	// Parameters: 1 queue, 2 key, 3 session, 4 limit.
	private static final String READY_KEY = """
			ready AS MATERIALIZED (
			    SELECT id FROM %1$s
			    WHERE queue = ? AND fairness_key = ? AND claimed_by IS NULL AND run_at <= now()
			      AND EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?)
			    ORDER BY priority DESC, run_at, id
			    LIMIT ?
			    %3$s)
			""";

	// In the statements below, %3$s is the driver's lock on the rows each branch reads.

	// The ready tasks of one bucket in claim order: the ready index read from the bucket's head, without a sort. With
	// one bucket this is the claim of V1's index with "bucket = 0" added to its bounds, and costs the same: the
	// claim is planned anew at every run (its LIMIT is a parameter, so a generic plan guesses a tenth of the table
	// and never wins), and planning grows with every branch a statement has, so the wrap-around to the other buckets
	// is a statement of its own (READY_OTHERS), run only after a claim came back short.
	// Parameters: 1 queue, 2 bucket, 3 session, 4 limit.
	private static final String READY = """
			ready AS MATERIALIZED (
			    SELECT id FROM %1$s
			    WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND run_at <= now()
			      AND EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?)
			    ORDER BY priority DESC, run_at, id
			    LIMIT ?
			    %3$s)
			""";

	// The wrap-around of YugabyteDB's random-start claim, over buckets: the later buckets, then the earlier ones,
	// each read in (bucket, claim order), the UNION ALL stopped by the outer LIMIT as soon as it has enough. So a
	// claim never misses a task whatever bucket count its producer had (or has since). No sort either.
	// Parameters: later 1 queue, 2 bucket, 3 limit; earlier 4 queue, 5 bucket, 6 limit; 7 session, 8 limit.
	private static final String READY_OTHERS = """
			ready AS MATERIALIZED (
			    SELECT id FROM (
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND bucket > ? AND claimed_by IS NULL AND run_at <= now()
			            ORDER BY bucket, priority DESC, run_at, id
			            LIMIT ?
			            %3$s) later
			        UNION ALL
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND bucket < ? AND claimed_by IS NULL AND run_at <= now()
			            ORDER BY bucket, priority DESC, run_at, id
			            LIMIT ?
			            %3$s) earlier
			    ) others
			    WHERE EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?)
			    LIMIT ?)
			""";

	// READY for a bucket that knows where its previous claim ended (task :afterId of priority :priority, due at
	// :after), so that the scan need not walk the index entries of tasks claimed since: a held-open transaction
	// elsewhere keeps VACUUM from removing them, and each would cost a heap visit. Same order as READY, in three
	// ranges: higher priorities due in the last second, the same priority after (:after, :afterId) (or from a second
	// ago, if earlier), lower priorities. Tasks due before those bounds (released, recovered from an expired session,
	// or committed by a transaction that ran for more than a second) are left to the next plain claim, which the
	// worker runs every second or so. It reads its own bucket only, as READY does.
	// Parameters: higher 1 queue, 2 bucket, 3 priority, 4 limit; same 5 queue, 6 bucket, 7 priority, 8 and 9 after
	// (micros), 10 afterId, 11 limit; lower 12 queue, 13 bucket, 14 priority, 15 limit; 16 session, 17 limit.
	private static final String READY_AFTER = """
			ready AS MATERIALIZED (
			    SELECT id FROM (
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND priority > ?
			              AND run_at >= now() - interval '1 second' AND run_at <= now()
			            ORDER BY priority DESC, run_at, id
			            LIMIT ?
			            %3$s) higher
			        UNION ALL
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND priority = ?
			              AND (run_at, id) > (
			                  LEAST(timestamptz 'epoch' + ? * interval '1 microsecond',
			                        now() - interval '1 second'),
			                  CASE WHEN timestamptz 'epoch' + ? * interval '1 microsecond'
			                            <= now() - interval '1 second'
			                       THEN CAST(? AS uuid) ELSE uuid '00000000-0000-0000-0000-000000000000' END)
			              AND run_at <= now()
			            ORDER BY run_at, id
			            LIMIT ?
			            %3$s) same
			        UNION ALL
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND priority < ? AND run_at <= now()
			            ORDER BY priority DESC, run_at, id
			            LIMIT ?
			            %3$s) lower
			    ) next
			    WHERE EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?)
			    LIMIT ?)
			""";

	/** The lock on the rows a claim reads, on the line after each {@code LIMIT}; empty for none. */
	private final String rowLock;

	/** What {@link #TAKE_READY} adds to its {@code WHERE}: the check that a row read unlocked is still unclaimed. */
	private final String takeGuard;

	/** {@link #claimedTime}'s expression, {@code %s} the column. */
	private final String claimedTime;

	/**
	 * What {@link #TAKE_READY} adds to its {@code WHERE} for {@link #takeReadyAsync}: on PostgreSQL,
	 * {@code synchronous_commit} off until the statement's transaction ends (an uncorrelated subquery, run once per
	 * statement, before its commit reads the setting; for an autocommit claim that transaction is its own, and the
	 * pooled connection keeps its setting). {@code SET LOCAL} would need a transaction around the claim: in autocommit
	 * it is a statement of its own and sets nothing for the next.
	 */
	private final String asyncCommit;

	StorageDriver(String rowLock, String takeGuard, String claimedTime, String asyncCommit) {
		this.rowLock = rowLock;
		this.takeGuard = takeGuard;
		this.claimedTime = claimedTime;
		this.asyncCommit = asyncCommit;
	}

	/** The driver of {@code database}, chosen once at start. */
	static StorageDriver of(Database database) {
		return switch (database) {
			case COCKROACHDB -> COCKROACHDB;
			case YUGABYTEDB -> YUGABYTEDB;
			case POSTGRESQL, AUTO -> POSTGRESQL;
		};
	}

	/** The "ready" CTE of a claim of one bucket. */
	String ready(TaskTables tables) {
		return READY.formatted(tables.task(), tables.session(), this.rowLock);
	}

	/** The "ready" CTE of a claim of the other buckets, after one came back short. */
	String readyOthers(TaskTables tables) {
		return READY_OTHERS.formatted(tables.task(), tables.session(), this.rowLock);
	}

	/** The "ready" CTE of a claim of one bucket from where its previous claim ended. */
	String readyAfter(TaskTables tables) {
		return READY_AFTER.formatted(tables.task(), tables.session(), this.rowLock);
	}

	/** The UPDATE that takes the rows of a "ready" CTE for the claiming session. */
	String takeReady(TaskTables tables) {
		return TAKE_READY.formatted(tables.task(), this.takeGuard, "", claimedTime("t.enqueued_at"),
				claimedTime("t.run_at"), claimedTime("t.claimed_at"), "");
	}

	/**
	 * {@link #takeReady} of a claim whose commit does not wait for the WAL to reach the disk, where the database has
	 * such a flush ({@link #asyncCommit}). Only for a claim that is the only write of its transaction: a claim lost in
	 * a crash of the server is a claim that never was, as the task is then ready again and whatever its session did
	 * with it commits later, in a commit that waits for the disk and so flushes this claim's WAL before its own.
	 */
	String takeReadyAsync(TaskTables tables) {
		return TAKE_READY.formatted(tables.task(), this.takeGuard, "", claimedTime("t.enqueued_at"),
				claimedTime("t.run_at"), claimedTime("t.claimed_at"), this.asyncCommit);
	}

	/** The "ready" CTE of a fair claim, see READY_FAIR. */
	String readyFair(TaskTables tables) {
		return READY_FAIR.formatted(tables.task(), tables.session(), this.rowLock);
	}

	/** The "ready" CTE of the claim of one fairness key's tasks, see READY_KEY. */
	String readyKey(TaskTables tables) {
		return READY_KEY.formatted(tables.task(), tables.session(), this.rowLock);
	}

	/** {@link #takeReady} of a fair claim: it also returns the key the next fair claim starts after, column 14. */
	String takeFair(TaskTables tables) {
		return TAKE_READY.formatted(tables.task(), this.takeGuard, NEXT_KEY, claimedTime("t.enqueued_at"),
				claimedTime("t.run_at"), claimedTime("t.claimed_at"), "");
	}

	/**
	 * A time of a claimed task ({@code enqueued_at}, {@code run_at}, {@code claimed_at}) as the claims return it, for
	 * {@link TaskClaims} to read. On PostgreSQL and YugabyteDB whole microseconds since the epoch, a {@code bigint}: a
	 * {@code timestamptz} read as a {@code java.time} value cost the claim thread a fifth of its CPU and a third of its
	 * allocations in a profile of W1 (docs/performance.md), and the number is exact (numeric on PostgreSQL 14 and
	 * later; before, and on YugabyteDB, a float8 whose error stays far below half a microsecond, which the cast
	 * rounds away). On CockroachDB the {@code timestamptz} itself: its extract() is a float8 of the nanoseconds that
	 * can be a microsecond off (see LimitedClaims), and a claim's times must be those of its row.
	 */
	String claimedTime(String column) {
		return this.claimedTime.formatted(column);
	}

}
