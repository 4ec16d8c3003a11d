package dev.taskqueue.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The claims of {@link TaskRepository}: the ready tasks a session takes, alone or in the statement that also deletes
 * the tasks the worker completed since. Plain JDBC on {@link HotStatements}: a worker runs them all the time.
 */
final class TaskClaims {

	// The end of both claims: takes the rows their "ready" CTE locked. That CTE is MATERIALIZED, so the locked set is
	// computed once and the UPDATE never sees more than :limit rows. The UPDATE finds them by primary key (= ANY of
	// an array, not a join): a join lets a generic plan, which guesses the LIMIT at a tenth of the table, hash the
	// whole table instead, and it is large when it is bloated.
	// Parameters: 1 session.
	static final String TAKE_READY = """
			UPDATE %1$s t SET claimed_by = ?, claimed_at = now(), attempt = t.attempt + 1
			WHERE t.id = ANY(ARRAY(SELECT id FROM ready))
			RETURNING t.id, t.queue, t.payload::text AS payload, t.priority, t.attempt, t.enqueued_at, t.run_at,
			          t.claimed_at, t.claimed_by, t.last_error, t.headers::text AS headers, t.ordering_key, t.bucket
			""";

	// The ready tasks of one bucket in claim order: the ready index read from the bucket's head, without a sort. With
	// one bucket this is the claim of V1's index with "bucket = 0" added to its bounds, and costs the same: the
	// claim is planned anew at every run (its LIMIT is a parameter, so a generic plan guesses a tenth of the table
	// and never wins), and planning grows with every branch a statement has, so the wrap-around to the other buckets
	// is a statement of its own (CLAIM_OTHERS), run only after a claim came back short.
	// Parameters: 1 queue, 2 bucket, 3 session, 4 limit.
	static final String READY = """
			ready AS MATERIALIZED (
			    SELECT id FROM %1$s
			    WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND run_at <= now()
			      AND EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?)
			    ORDER BY priority DESC, run_at, id
			    LIMIT ?
			    FOR UPDATE SKIP LOCKED)
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
			            FOR UPDATE SKIP LOCKED) later
			        UNION ALL
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND bucket < ? AND claimed_by IS NULL AND run_at <= now()
			            ORDER BY bucket, priority DESC, run_at, id
			            LIMIT ?
			            FOR UPDATE SKIP LOCKED) earlier
			    ) others
			    WHERE EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?)
			    LIMIT ?)
			""";

	private static final String CLAIM_OTHERS = "WITH " + READY_OTHERS + TAKE_READY;

	private static final String CLAIM = "WITH " + READY + TAKE_READY;

	// CLAIM for a bucket that knows where its previous claim ended (task :afterId of priority :priority, due at
	// :after), so that the scan need not walk the index entries of tasks claimed since: a held-open transaction
	// elsewhere keeps VACUUM from removing them, and each would cost a heap visit. Same order as CLAIM, in three
	// ranges: higher priorities due in the last second, the same priority after (:after, :afterId) (or from a second
	// ago, if earlier), lower priorities. Tasks due before those bounds (released, recovered from an expired session,
	// or committed by a transaction that ran for more than a second) are left to the next CLAIM, which the worker
	// runs every second or so. It reads its own bucket only, as CLAIM does.
	// Parameters: higher 1 queue, 2 bucket, 3 priority, 4 limit; same 5 queue, 6 bucket, 7 priority, 8 and 9 after
	// (micros), 10 afterId, 11 limit; lower 12 queue, 13 bucket, 14 priority, 15 limit; 16 session, 17 limit.
	static final String READY_AFTER = """
			ready AS MATERIALIZED (
			    SELECT id FROM (
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND priority > ?
			              AND run_at >= now() - interval '1 second' AND run_at <= now()
			            ORDER BY priority DESC, run_at, id
			            LIMIT ?
			            FOR UPDATE SKIP LOCKED) higher
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
			            FOR UPDATE SKIP LOCKED) same
			        UNION ALL
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND priority < ? AND run_at <= now()
			            ORDER BY priority DESC, run_at, id
			            LIMIT ?
			            FOR UPDATE SKIP LOCKED) lower
			    ) next
			    WHERE EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?)
			    LIMIT ?)
			""";

	private static final String CLAIM_AFTER = "WITH " + READY_AFTER + TAKE_READY;

	// The start of CLAIM or CLAIM_AFTER folded with the completions of BATCHED mode: one round trip and one commit
	// for both (Oban Pro folds acks into its fetch the same way), each completion fenced by its own claim
	// (CompletionFences), as the worker's session can change while completions wait.
	// The claim cannot take a task this statement deletes. Its CTEs run on one snapshot and do not see each other's
	// changes (what changing a row twice in one statement does is unpredictable), but in that snapshot the two sets
	// are disjoint: the DELETE takes a task only while its claimed_by is the session of its claim, never null, and
	// "ready" only tasks whose claimed_by IS NULL. A row changed since by another transaction is checked again in its
	// new version, which can drop it from either set, not add it. So a completed task whose claim was lost and
	// released is not deleted (nor reported completed) and may be claimed again here, as it should be.
	// Parameters: 1 ids, 2 claims.
	private static final String COMPLETED = """
			completed AS (
			    DELETE FROM %1$s t WHERE FENCED
			    RETURNING t.%2$s)
			""".replace("FENCED", CompletionFences.FENCED);

	// The end of the fold: the claimed tasks, then the ids of the completed ones (done = true), then, with ordered
	// keys, the next tasks of their keys handed off to the claiming session (handed = true).
	private static final String CLAIMED_AND_COMPLETED = """
			SELECT id, queue, payload, priority, attempt, enqueued_at, run_at, claimed_at, claimed_by, last_error, headers,
			       ordering_key, bucket, false AS done, false AS handed
			FROM claimed
			UNION ALL
			""";

	// The ids of the completed tasks and the tasks OrderedKeys.HAND_OFF handed off, as ClaimRows.claimResult reads them.
	static final String COMPLETED_AND_HANDED_OFF = """
			SELECT id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, false FROM completed
			UNION ALL
			SELECT *, false, true FROM promoted WHERE claimed_by IS NOT NULL
			""";

	private static final String COMPLETED_IDS = """
			SELECT id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, false FROM completed
			""";

	private final HotStatements statements;

	final String claim;

	final String claimOthers;

	final String claimAfter;

	final String completeAndClaim;

	final String completeAndClaimAfter;

	/** Whether the fold hands the next task of a completed task's key off to the claiming session. */
	private final boolean ordered;

	/** Claims with SKIP LOCKED, see the next constructor. */
	TaskClaims(HotStatements statements, TaskTables tables, boolean history, boolean ordered) {
		this(statements, tables, history, ordered, true);
	}

	/**
	 * @param ordered whether the folded completions make the next task of a completed task's key its head, handed
	 * off to the claiming session
	 * @param skipLocked whether claims lock what they read {@code FOR UPDATE SKIP LOCKED}; else (CockroachDB, see
	 * {@link Database#skipLockedClaims}) they read unlocked and take rows still unclaimed, as CockroachDB's queue
	 * article does: two claims of one row end in a serialization failure, run again by SerializationRetry.
	 */
	TaskClaims(HotStatements statements, TaskTables tables, boolean history, boolean ordered, boolean skipLocked) {
		this.statements = statements;
		this.ordered = ordered;
		String ready = locking(READY, skipLocked).formatted(tables.task(), tables.session());
		String readyAfter = locking(READY_AFTER, skipLocked).formatted(tables.task(), tables.session());
		String take = locking(TAKE_READY, skipLocked).formatted(tables.task());
		this.claim = locking(CLAIM, skipLocked).formatted(tables.task(), tables.session());
		this.claimOthers = locking(CLAIM_OTHERS, skipLocked).formatted(tables.task(), tables.session());
		this.claimAfter = locking(CLAIM_AFTER, skipLocked).formatted(tables.task(), tables.session());
		String completed = COMPLETED.formatted(tables.task(), (history || ordered) ? "*" : "id");
		if (history) { // keeps the completed tasks as COMPLETE_ALL_AND with KEPT does
			completed = completed.stripTrailing() + ",\n" + TaskCompletions.KEPT.formatted(tables.task(), tables.history());
		}
		if (ordered) {
			completed = completed.stripTrailing() + ",\n" + OrderedKeys.handOff(tables, "completed");
		}
		String end = CLAIMED_AND_COMPLETED + (ordered ? COMPLETED_AND_HANDED_OFF : COMPLETED_IDS);
		this.completeAndClaim = folded(completed, ready, take, end);
		this.completeAndClaimAfter = folded(completed, readyAfter, take, end);
	}

	/** {@code sql} as it is, or without SKIP LOCKED: reading unlocked, and updating only rows still unclaimed. */
	static String locking(String sql, boolean skipLocked) {
		return skipLocked ? sql : sql.replace("\n    FOR UPDATE SKIP LOCKED)", ")")
			.replace("\n            FOR UPDATE SKIP LOCKED)", ")")
			.replace("WHERE t.id = ANY(ARRAY(SELECT id FROM ready))",
					"WHERE t.id = ANY(ARRAY(SELECT id FROM ready)) AND t.claimed_by IS NULL");
	}

	static String folded(String completed, String ready, String take, String end) {
		return "WITH " + completed.stripTrailing() + ",\n" + ready.stripTrailing() + ",\nclaimed AS (\n"
				+ take.stripTrailing() + ")\n" + end;
	}

	/** CLAIM, then CLAIM_OTHERS for the rest when it came back short. */
	List<ClaimedTask> claim(String queue, int bucket, UUID session, int limit) {
		List<ClaimedTask> claimed = claimBucket(queue, bucket, session, limit);
		if (claimed.size() >= limit) {
			return claimed;
		}
		List<ClaimedTask> all = new ArrayList<>(claimed);
		all.addAll(claimOthers(queue, bucket, session, limit - claimed.size()));
		return all;
	}

	List<ClaimedTask> claimBucket(String queue, int bucket, UUID session, int limit) {
		return this.statements.query(this.claim,
				(statement, connection) -> ClaimRows.bindClaim(statement, 1, queue, bucket, session, limit),
				ClaimRows::claimedTasks);
	}

	List<ClaimedTask> claimOthers(String queue, int bucket, UUID session, int limit) {
		return this.statements.query(this.claimOthers, (statement, connection) -> {
			for (int branch = 0; branch < 2; branch++) { // later, earlier
				statement.setString(1 + 3 * branch, queue);
				statement.setInt(2 + 3 * branch, bucket);
				statement.setInt(3 + 3 * branch, limit);
			}
			statement.setObject(7, session);
			statement.setInt(8, limit);
			statement.setObject(9, session);
		}, ClaimRows::claimedTasks);
	}

	List<ClaimedTask> claimAfter(String queue, int bucket, UUID session, int limit, int priority, Instant after,
			UUID afterId) {
		@Nullable Long afterMicros = Micros.sinceEpoch(after);
		return this.statements.query(this.claimAfter,
				(statement, connection) -> ClaimRows.bindClaimAfter(statement, 1, queue, bucket, session, limit, priority,
						afterMicros, afterId),
				ClaimRows::claimedTasks);
	}

	ClaimResult completeAndClaim(List<ClaimedTask> done, String queue, int bucket, UUID session, int limit) {
		if (done.isEmpty()) {
			return new ClaimResult(claimBucket(queue, bucket, session, limit), Set.of());
		}
		CompletionFences completions = new CompletionFences(done);
		return this.statements.query(this.completeAndClaim, (statement, connection) -> {
			bindCompletions(statement, connection, completions, queue, session);
			ClaimRows.bindClaim(statement, firstOfClaim(), queue, bucket, session, limit);
		}, ClaimRows::claimResult);
	}

	ClaimResult completeAndClaimAfter(List<ClaimedTask> done, String queue, int bucket, UUID session, int limit,
			int priority, Instant after, UUID afterId) {
		if (done.isEmpty()) {
			return new ClaimResult(claimAfter(queue, bucket, session, limit, priority, after, afterId), Set.of());
		}
		CompletionFences completions = new CompletionFences(done);
		@Nullable Long afterMicros = Micros.sinceEpoch(after);
		return this.statements.query(this.completeAndClaimAfter, (statement, connection) -> {
			bindCompletions(statement, connection, completions, queue, session);
			ClaimRows.bindClaimAfter(statement, firstOfClaim(), queue, bucket, session, limit, priority, afterMicros, afterId);
		}, ClaimRows::claimResult);
	}

	/** Binds COMPLETED and, with ordered keys, the hand-off to the claiming session of tasks of {@code queue}. */
	private void bindCompletions(PreparedStatement statement, Connection connection, CompletionFences completions,
			String queue, UUID session) throws SQLException {
		completions.bind(statement, connection, 1);
		if (this.ordered) {
			OrderedKeys.bindHandOff(statement, 3, queue, session);
		}
	}

	private int firstOfClaim() {
		return this.ordered ? 5 : 3;
	}

}
