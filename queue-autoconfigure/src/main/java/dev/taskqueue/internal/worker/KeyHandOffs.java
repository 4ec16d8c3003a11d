package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.Micros;
import dev.taskqueue.internal.jdbc.OrderedKeys;
import dev.taskqueue.internal.jdbc.TaskTables;
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
	// claimed_by. The probe reads the unique index of heads (%2$s, OrderedKeys.head). Parameters: 1 queue, 2 keys.
	private static final String HEADLESS = """
			headless AS (
			    SELECT q.queue, k.ordering_key, CAST(NULL AS uuid) AS claimed_by
			    FROM (SELECT CAST(? AS text) AS queue) q CROSS JOIN unnest(CAST(? AS text[])) AS k(ordering_key)
			    WHERE NOT EXISTS (SELECT 1 FROM %1$s x
			                      WHERE x.queue = q.queue AND x.ordering_key = k.ordering_key AND %2$s))
			""";

	// The end of the claims with hand-offs, as TaskClaims.handOffResult reads it: the claimed tasks, those handed off,
	// and after each task handed off up to :following tasks of its key that come next (for group commit, which runs
	// them in the group that runs the handed-off task, see worker/KeyRuns): still held, so shown as they will be once
	// claimed by the same session, with their ordering_seq and whether they are due (%2$s is OrderedKeys.HELD; %3$s to
	// %5$s their times as the driver's claims return them, StorageDriver#claimedTime).
	// Parameter: the last, :following.
	private static final String END = """
			SELECT id, queue, payload, priority, attempt, enqueued_at, run_at, claimed_at, claimed_by, last_error, headers,
			       ordering_key, bucket, false AS handed, CAST(NULL AS bigint) AS seq, true AS due
			FROM claimed
			UNION ALL
			SELECT *, true, NULL, true FROM promoted WHERE claimed_by IS NOT NULL
			UNION ALL
			SELECT n.id, n.queue, n.payload::text, n.priority, n.attempt + 1, %3$s, %4$s, %5$s, p.claimed_by,
			       n.last_error, n.headers::text, n.ordering_key, n.bucket, false, n.ordering_seq, n.run_at <= now()
			FROM promoted p CROSS JOIN LATERAL (
			    SELECT h.* FROM %1$s h
			    WHERE h.queue = p.queue AND h.ordering_key = p.ordering_key AND h.claimed_by = %2$s AND h.id <> p.id
			    ORDER BY h.ordering_seq LIMIT ?) n
			WHERE p.claimed_by IS NOT NULL
			""";

	// TaskRepository.claimHeld: the claim a hand-off makes, of tasks still held (%2$s, OrderedKeys.HELD).
	// Parameters: 1 session, 2 ids.
	private static final String CLAIM_HELD = """
			UPDATE %1$s SET claimed_by = ?, claimed_at = now(), attempt = attempt + 1
			WHERE id = ANY(?) AND claimed_by IS NOT DISTINCT FROM %2$s
			""";

	private final HotStatements statements;

	private final String handOffAndClaim;

	private final String handOffAndClaimAfter;

	private final String promote;

	private final String claimHeld;

	/** @param driver the database's claims, see {@link StorageDriver} */
	KeyHandOffs(HotStatements statements, TaskTables tables, StorageDriver driver) {
		this.statements = statements;
		String headlessKeys = HEADLESS.formatted(tables.task(), OrderedKeys.head("x")).stripTrailing() + ",\n";
		String headless = headlessKeys + OrderedKeys.handOff(tables, "headless", driver::claimedTime);
		String take = driver.takeReady(tables);
		String end = END.formatted(tables.task(), OrderedKeys.HELD, driver.claimedTime("n.enqueued_at"),
				driver.claimedTime("n.run_at"), driver.claimedTime("now()"));
		this.handOffAndClaim = TaskClaims.folded(headless, driver.ready(tables), take, end);
		this.handOffAndClaimAfter = TaskClaims.folded(headless, driver.readyAfter(tables), take, end);
		this.claimHeld = CLAIM_HELD.formatted(tables.task(), OrderedKeys.HELD);
		this.promote = "WITH " + headlessKeys + OrderedKeys.promote(tables, "headless") + "SELECT count(*) FROM promoted\n";
	}

	/**
	 * Makes the next task of each of {@code keys} of {@code queue} that has no head its head, claimed for
	 * {@code session} when it is due (else ready at its due time), and claims up to {@code limit} ready tasks of
	 * {@code bucket} like {@link TaskClaims#claimBucket}, in one statement. For each task handed off, it also reads up
	 * to {@code following} due tasks of its key that come next, without claiming them
	 * ({@link ClaimResult#following()}).
	 */
	ClaimResult handOffAndClaim(List<String> keys, String queue, int bucket, UUID session, int limit, int following) {
		return this.statements.query(this.handOffAndClaim, (statement, connection) -> {
			bindKeys(statement, connection, keys, queue, session);
			statement.setInt(TaskClaims.bindClaim(statement, 5, queue, bucket, session, limit), following);
		}, TaskClaims::handOffResult);
	}

	/** {@link #handOffAndClaim} that claims like {@link TaskClaims#claimAfter}. */
	ClaimResult handOffAndClaimAfter(List<String> keys, String queue, int bucket, UUID session, int limit,
			int following, int priority, Instant after, UUID afterId) {
		@Nullable Long afterMicros = Micros.sinceEpoch(after);
		return this.statements.query(this.handOffAndClaimAfter, (statement, connection) -> {
			bindKeys(statement, connection, keys, queue, session);
			statement.setInt(TaskClaims.bindClaimAfter(statement, 5, queue, bucket, session, limit, priority, afterMicros,
					afterId), following);
		}, TaskClaims::handOffResult);
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

	/** {@link TaskRepository#claimHeld}. */
	int claimHeld(UUID session, List<UUID> ids) {
		return this.statements.update(this.claimHeld, (statement, connection) -> {
			statement.setObject(1, session);
			statement.setArray(2, connection.createArrayOf("uuid", ids.toArray()));
		});
	}

	/** Binds HEADLESS and HAND_OFF: the keys of {@code queue}, handed off to {@code session}. */
	private static void bindKeys(PreparedStatement statement, Connection connection, List<String> keys, String queue,
			UUID session) throws SQLException {
		statement.setString(1, queue);
		statement.setArray(2, connection.createArrayOf("text", keys.toArray()));
		OrderedKeys.bindHandOff(statement, 3, queue, session);
	}

}
