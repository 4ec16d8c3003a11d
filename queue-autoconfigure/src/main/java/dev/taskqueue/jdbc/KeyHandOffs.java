package dev.taskqueue.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * The hand-offs that completions leave to the claim loop (docs/ordered-keys.md, "Hand-off"): a {@code TRANSACTIONAL}
 * or group-commit completion that may hand the next task of its key off deletes the head like a task without a key,
 * and the worker's next claim of the queue makes the key's next task the head and claims it, in the claim's own
 * statement. So the completion's commit, which these modes wait for once per task or group, writes no more than one
 * of a task without a key, and the hand-offs are written many at a time, as claims are.
 * <p>
 * Until that claim (or the sweep of {@link OrderedKeys#promoteOrphans}, should the worker die first), the key has no
 * head: an enqueue then goes behind its held tasks, never ahead of them.
 */
final class KeyHandOffs {

	// The given keys of a queue that have no head (the sweep, or an enqueue of a key without held tasks, may have
	// given them one since their head was deleted), as HAND_OFF and PROMOTE read deleted heads: queue, ordering_key,
	// claimed_by. The probe reads the unique index of heads. Parameters: 1 queue, 2 keys.
	private static final String HEADLESS = """
			headless AS (
			    SELECT q.queue, k.ordering_key, CAST(NULL AS uuid) AS claimed_by
			    FROM (SELECT CAST(? AS text) AS queue) q CROSS JOIN unnest(CAST(? AS text[])) AS k(ordering_key)
			    WHERE NOT EXISTS (SELECT 1 FROM %1$s x
			                      WHERE x.queue = q.queue AND x.ordering_key = k.ordering_key AND x.HEAD))
			""".replace("x.HEAD", "x." + OrderedKeys.HEAD.replace("claimed_by", "x.claimed_by"));

	// The end of the claims with hand-offs, as ClaimRows.claimResult reads it: the claimed tasks, then those handed off.
	private static final String HANDED_OFF = "SELECT *, false, true FROM promoted WHERE claimed_by IS NOT NULL\n";

	private final HotStatements statements;

	private final String handOffAndClaim;

	private final String handOffAndClaimAfter;

	private final String promote;

	KeyHandOffs(HotStatements statements, TaskTables tables, boolean skipLocked) {
		this.statements = statements;
		String headless = HEADLESS.formatted(tables.task()).stripTrailing() + ",\n"
				+ OrderedKeys.handOff(tables, "headless");
		String ready = TaskClaims.locking(TaskClaims.READY, skipLocked).formatted(tables.task(), tables.session());
		String readyAfter = TaskClaims.locking(TaskClaims.READY_AFTER, skipLocked)
			.formatted(tables.task(), tables.session());
		String take = TaskClaims.locking(TaskClaims.TAKE_READY, skipLocked).formatted(tables.task());
		String end = TaskClaims.CLAIMED_AND_COMPLETED + HANDED_OFF;
		this.handOffAndClaim = TaskClaims.folded(headless, ready, take, end);
		this.handOffAndClaimAfter = TaskClaims.folded(headless, readyAfter, take, end);
		this.promote = "WITH " + HEADLESS.formatted(tables.task()).stripTrailing() + ",\n"
				+ OrderedKeys.promote(tables, "headless") + "SELECT count(*) FROM promoted\n";
	}

	/**
	 * Makes the next task of each of {@code keys} of {@code queue} that has no head its head, claimed for
	 * {@code session} when it is due (else ready at its due time), and claims up to {@code limit} ready tasks of
	 * {@code bucket} like {@link TaskClaims#claimBucket}, in one statement.
	 */
	ClaimResult handOffAndClaim(List<String> keys, String queue, int bucket, UUID session, int limit) {
		return this.statements.query(this.handOffAndClaim, (statement, connection) -> {
			bindKeys(statement, connection.createArrayOf("text", keys.toArray()), queue, session);
			ClaimRows.bindClaim(statement, 5, queue, bucket, session, limit);
		}, ClaimRows::claimResult);
	}

	/** {@link #handOffAndClaim} that claims like {@link TaskClaims#claimAfter}. */
	ClaimResult handOffAndClaimAfter(List<String> keys, String queue, int bucket, UUID session, int limit,
			int priority, Instant after, UUID afterId) {
		@Nullable Long afterMicros = Micros.sinceEpoch(after);
		return this.statements.query(this.handOffAndClaimAfter, (statement, connection) -> {
			bindKeys(statement, connection.createArrayOf("text", keys.toArray()), queue, session);
			ClaimRows.bindClaimAfter(statement, 5, queue, bucket, session, limit, priority, afterMicros, afterId);
		}, ClaimRows::claimResult);
	}

	/**
	 * Makes the next task of each of {@code keys} of {@code queue} that has no head its head, for any claim, as the
	 * completion would have: when the worker does not claim for the queue now (paused, stopping).
	 * @return how many tasks were made heads
	 */
	int promote(String queue, List<String> keys) {
		return this.statements.query(this.promote, (statement, connection) -> {
			statement.setString(1, queue);
			statement.setArray(2, connection.createArrayOf("text", keys.toArray()));
		}, (rows) -> rows.next() ? rows.getInt(1) : 0);
	}

	private static void bindKeys(PreparedStatement statement, java.sql.Array keys, String queue, UUID session)
			throws SQLException {
		statement.setString(1, queue);
		statement.setArray(2, keys);
		OrderedKeys.bindHandOff(statement, 3, queue, session);
	}

}
