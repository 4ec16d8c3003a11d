package dev.taskqueue.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
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
	private static final String TAKE_READY = """
			UPDATE %1$s t SET claimed_by = ?, claimed_at = now(), attempt = t.attempt + 1
			WHERE t.id = ANY(ARRAY(SELECT id FROM ready))
			RETURNING t.id, t.queue, t.payload::text AS payload, t.priority, t.attempt, t.enqueued_at, t.run_at,
			          t.claimed_at, t.claimed_by, t.last_error, t.headers::text AS headers, t.ordering_key
			""";

	// Parameters: 1 queue, 2 session, 3 limit.
	private static final String READY = """
			ready AS MATERIALIZED (
			    SELECT id FROM %1$s
			    WHERE queue = ? AND claimed_by IS NULL AND run_at <= now()
			      AND EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?)
			    ORDER BY priority DESC, run_at, id
			    LIMIT ?
			    FOR UPDATE SKIP LOCKED)
			""";

	private static final String CLAIM = "WITH " + READY + TAKE_READY;

	// CLAIM for a queue that knows where its previous claim ended (task :afterId of priority :priority, due at
	// :after), so that the scan need not walk the index entries of tasks claimed since: a held-open transaction
	// elsewhere keeps VACUUM from removing them, and each would cost a heap visit. Same order as CLAIM, in three
	// ranges: higher priorities due in the last second, the same priority after (:after, :afterId) (or from a second
	// ago, if earlier), lower priorities. Tasks due before those bounds (released, recovered from an expired session,
	// or committed by a transaction that ran for more than a second) are left to the next CLAIM, which the worker
	// runs every second or so.
	// Parameters: higher 1 queue, 2 priority, 3 limit; same 4 queue, 5 priority, 6 and 7 after (micros), 8 afterId,
	// 9 limit; lower 10 queue, 11 priority, 12 limit; 13 session, 14 limit.
	private static final String READY_AFTER = """
			ready AS MATERIALIZED (
			    SELECT id FROM (
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND claimed_by IS NULL AND priority > ?
			              AND run_at >= now() - interval '1 second' AND run_at <= now()
			            ORDER BY priority DESC, run_at, id
			            LIMIT ?
			            FOR UPDATE SKIP LOCKED) higher
			        UNION ALL
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = ? AND claimed_by IS NULL AND priority = ?
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
			            WHERE queue = ? AND claimed_by IS NULL AND priority < ? AND run_at <= now()
			            ORDER BY priority DESC, run_at, id
			            LIMIT ?
			            FOR UPDATE SKIP LOCKED) lower
			    ) next
			    WHERE EXISTS (SELECT 1 FROM %2$s s WHERE s.id = ?)
			    LIMIT ?)
			""";

	private static final String CLAIM_AFTER = "WITH " + READY_AFTER + TAKE_READY;

	// The start of CLAIM or CLAIM_AFTER folded with the completions of BATCHED mode: one round trip and one commit
	// for both (Oban Pro folds acks into its fetch the same way). Each completion is fenced like COMPLETE_ALL, but by
	// its own claim's session, as the worker's session can change while completions wait.
	// The claim cannot take a task this statement deletes. Its CTEs run on one snapshot and do not see each other's
	// changes (what changing a row twice in one statement does is unpredictable), but in that snapshot the two sets
	// are disjoint: the DELETE takes a task only while its claimed_by is the session of its claim, never null, and
	// "ready" only tasks whose claimed_by IS NULL. A row changed since by another transaction is checked again in its
	// new version, which can drop it from either set, not add it. So a completed task whose claim was lost and
	// released is not deleted (nor reported completed) and may be claimed again here, as it should be. The rows are
	// found by primary key as in TaskRepository.COMPLETE_ALL.
	// Parameters: 1 ids, 2 attempts, 3 sessions.
	private static final String COMPLETED = """
			done AS MATERIALIZED (SELECT * FROM unnest(?, ?, ?) AS d(id, attempt, claimed_by)),
			completed AS (
			    DELETE FROM %1$s t USING done
			    WHERE DONE_BY_ID AND t.claimed_by IS NOT DISTINCT FROM done.claimed_by
			    RETURNING t.%2$s)
			""".replace("DONE_BY_ID", TaskRepository.DONE_BY_ID);

	// The end of the fold: the claimed tasks, then the ids of the completed ones (done = true), then, with ordered
	// keys, the next tasks of their keys handed off to the claiming session (handed = true).
	private static final String CLAIMED_AND_COMPLETED = """
			SELECT id, queue, payload, priority, attempt, enqueued_at, run_at, claimed_at, claimed_by, last_error, headers,
			       ordering_key, false AS done, false AS handed
			FROM claimed
			UNION ALL
			""";

	// The ids of the completed tasks and the tasks OrderedKeys.HAND_OFF handed off, as claimResult reads them.
	static final String COMPLETED_AND_HANDED_OFF = """
			SELECT id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, false FROM completed
			UNION ALL
			SELECT *, false, true FROM promoted WHERE claimed_by IS NOT NULL
			""";

	private static final String COMPLETED_IDS = """
			SELECT id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, false FROM completed
			""";

	private final HotStatements statements;

	private final String claim;

	private final String claimAfter;

	private final String completeAndClaim;

	private final String completeAndClaimAfter;

	/** Whether the fold hands the next task of a completed task's key off to the claiming session. */
	private final boolean ordered;

	/**
	 * @param ordered whether the folded completions make the next task of a completed task's key its head, handed
	 * off to the claiming session
	 */
	TaskClaims(HotStatements statements, TaskTables tables, boolean history, boolean ordered) {
		this.ordered = ordered;
		this.statements = statements;
		String ready = READY.formatted(tables.task(), tables.session());
		String readyAfter = READY_AFTER.formatted(tables.task(), tables.session());
		String take = TAKE_READY.formatted(tables.task());
		this.claim = CLAIM.formatted(tables.task(), tables.session());
		this.claimAfter = CLAIM_AFTER.formatted(tables.task(), tables.session());
		String completed = COMPLETED.formatted(tables.task(), (history || ordered) ? "*" : "id");
		if (history) { // keeps the completed tasks as COMPLETE_ALL_AND with KEPT does
			completed = completed.stripTrailing() + ",\n" + TaskRepository.KEPT.formatted(tables.task(), tables.history());
		}
		if (ordered) {
			completed = completed.stripTrailing() + ",\n" + OrderedKeys.handOff(tables, "completed");
		}
		String end = CLAIMED_AND_COMPLETED + (ordered ? COMPLETED_AND_HANDED_OFF : COMPLETED_IDS);
		this.completeAndClaim = folded(completed, ready, take, end);
		this.completeAndClaimAfter = folded(completed, readyAfter, take, end);
	}

	private static String folded(String completed, String ready, String take, String end) {
		return "WITH " + completed.stripTrailing() + ",\n" + ready.stripTrailing() + ",\nclaimed AS (\n"
				+ take.stripTrailing() + ")\n" + end;
	}

	List<ClaimedTask> claim(String queue, UUID session, int limit) {
		return this.statements.query(this.claim,
				(statement, connection) -> bindClaim(statement, 1, queue, session, limit), TaskClaims::claimedTasks);
	}

	List<ClaimedTask> claimAfter(String queue, UUID session, int limit, int priority, Instant after, UUID afterId) {
		@Nullable Long afterMicros = Micros.sinceEpoch(after);
		return this.statements.query(this.claimAfter,
				(statement, connection) -> bindClaimAfter(statement, 1, queue, session, limit, priority, afterMicros,
						afterId),
				TaskClaims::claimedTasks);
	}

	ClaimResult completeAndClaim(List<ClaimedTask> done, String queue, UUID session, int limit) {
		if (done.isEmpty()) {
			return new ClaimResult(claim(queue, session, limit), Set.of());
		}
		Completions completions = new Completions(done);
		return this.statements.query(this.completeAndClaim, (statement, connection) -> {
			bindCompletions(statement, connection, completions, queue, session);
			bindClaim(statement, firstOfClaim(), queue, session, limit);
		}, TaskClaims::claimResult);
	}

	ClaimResult completeAndClaimAfter(List<ClaimedTask> done, String queue, UUID session, int limit, int priority,
			Instant after, UUID afterId) {
		if (done.isEmpty()) {
			return new ClaimResult(claimAfter(queue, session, limit, priority, after, afterId), Set.of());
		}
		Completions completions = new Completions(done);
		@Nullable Long afterMicros = Micros.sinceEpoch(after);
		return this.statements.query(this.completeAndClaimAfter, (statement, connection) -> {
			bindCompletions(statement, connection, completions, queue, session);
			bindClaimAfter(statement, firstOfClaim(), queue, session, limit, priority, afterMicros, afterId);
		}, TaskClaims::claimResult);
	}

	/** Binds COMPLETED and, with ordered keys, the hand-off to the claiming session of tasks of {@code queue}. */
	private void bindCompletions(PreparedStatement statement, Connection connection, Completions completions,
			String queue, UUID session) throws SQLException {
		completions.bind(statement, connection);
		if (this.ordered) {
			OrderedKeys.bindHandOff(statement, 4, queue, session);
		}
	}

	private int firstOfClaim() {
		return this.ordered ? 6 : 4;
	}

	/** Binds READY and TAKE_READY from position {@code first}. */
	private static void bindClaim(PreparedStatement statement, int first, String queue, UUID session, int limit)
			throws SQLException {
		statement.setString(first, queue);
		statement.setObject(first + 1, session);
		statement.setInt(first + 2, limit);
		statement.setObject(first + 3, session);
	}

	/** Binds READY_AFTER and TAKE_READY from position {@code first}: each use of a parameter has its own. */
	private static void bindClaimAfter(PreparedStatement statement, int first, String queue, UUID session, int limit,
			int priority, @Nullable Long afterMicros, UUID afterId) throws SQLException {
		// higher
		statement.setString(first, queue);
		statement.setInt(first + 1, priority);
		statement.setInt(first + 2, limit);
		// same
		statement.setString(first + 3, queue);
		statement.setInt(first + 4, priority);
		Micros.bind(statement, first + 5, afterMicros);
		Micros.bind(statement, first + 6, afterMicros);
		statement.setObject(first + 7, afterId);
		statement.setInt(first + 8, limit);
		// lower
		statement.setString(first + 9, queue);
		statement.setInt(first + 10, priority);
		statement.setInt(first + 11, limit);
		// the session's check, the overall limit, then TAKE_READY
		statement.setObject(first + 12, session);
		statement.setInt(first + 13, limit);
		statement.setObject(first + 14, session);
	}

	private static List<ClaimedTask> claimedTasks(ResultSet rows) throws SQLException {
		List<ClaimedTask> tasks = new ArrayList<>();
		while (rows.next()) {
			tasks.add(claimedTask(rows));
		}
		return tasks;
	}

	/** Reads the rows of CLAIMED_AND_COMPLETED or COMPLETED_AND_HANDED_OFF. */
	static ClaimResult claimResult(ResultSet rows) throws SQLException {
		List<ClaimedTask> claimed = new ArrayList<>();
		Set<UUID> completed = new HashSet<>();
		List<ClaimedTask> handedOff = new ArrayList<>();
		while (rows.next()) {
			if (rows.getBoolean(13)) {
				completed.add(rows.getObject(1, UUID.class));
			}
			else {
				(rows.getBoolean(14) ? handedOff : claimed).add(claimedTask(rows));
			}
		}
		return new ClaimResult(claimed, completed, handedOff);
	}

	private static ClaimedTask claimedTask(ResultSet rows) throws SQLException {
		return claimedTask(rows, 0);
	}

	/** Reads the claimed columns of TAKE_READY that follow the first {@code skip} columns. */
	static ClaimedTask claimedTask(ResultSet rows, int skip) throws SQLException {
		return new ClaimedTask(rows.getObject(skip + 1, UUID.class), rows.getString(skip + 2),
				rows.getString(skip + 3), rows.getInt(skip + 4), rows.getInt(skip + 5), instant(rows, skip + 6),
				instant(rows, skip + 7), instant(rows, skip + 8), rows.getObject(skip + 9, UUID.class),
				rows.getString(skip + 10), rows.getString(skip + 11), rows.getString(skip + 12));
	}

	// OffsetDateTime rather than getTimestamp: no Calendar per value on the claim's hot path.
	private static Instant instant(ResultSet rows, int column) throws SQLException {
		return rows.getObject(column, OffsetDateTime.class).toInstant();
	}

	/** The arrays COMPLETED unnests, built before the statement takes a connection. */
	private static final class Completions {

		private final UUID[] ids;

		private final Integer[] attempts;

		private final UUID[] sessions;

		Completions(List<ClaimedTask> done) {
			this.ids = new UUID[done.size()];
			this.attempts = new Integer[done.size()];
			this.sessions = new UUID[done.size()];
			for (int i = 0; i < this.ids.length; i++) {
				ClaimedTask task = done.get(i);
				this.ids[i] = task.id();
				this.attempts[i] = task.attempt();
				this.sessions[i] = TaskRepository.session(task.claimedBy());
			}
		}

		void bind(PreparedStatement statement, Connection connection) throws SQLException {
			statement.setArray(1, connection.createArrayOf("uuid", this.ids));
			statement.setArray(2, connection.createArrayOf("int4", this.attempts));
			statement.setArray(3, connection.createArrayOf("uuid", this.sessions));
		}

	}

}
