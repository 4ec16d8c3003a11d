package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;

import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.Micros;
import dev.taskqueue.internal.jdbc.OrderedKeys;
import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The worker's statements for tasks with an ordering key (docs/ordered-keys.md, "How it works"): each gives a key
 * its next head, built from the fragments of {@link OrderedKeys}. {@link TaskRepository} sends a task with a key, and
 * a claim that carries keys, here; tasks without a key never run these.
 * <ul>
 * <li>The settling statements of a task with a key: the fenced delete (or dead letter) with {@link OrderedKeys#PROMOTE}
 * in the same statement, so the key's next task becomes the head exactly when the old head's deletion commits (the
 * same sent with the commit in one round trip is {@code Completer.CompletionCommit}'s); and the worker's complete-all, which hands the
 * next tasks off to the completing session instead ({@code OrderedKeys.HAND_OFF}), as does the fold of
 * {@code BATCHED} completions into a claim ({@link #handOffClaims}).</li>
 * <li>The hand-offs that completions leave to the claim loop ("Hand-off"): a {@code TRANSACTIONAL} or group-commit
 * completion that may hand the next task of its key off deletes the head like a task without a key, and the worker's
 * next claim of the queue makes the key's next task the head and claims it, in the claim's own statement. So the
 * completion's commit, which these modes wait for once per task or group, writes no more than one of a task without a
 * key, and the hand-offs are written many at a time, as claims are. Until that claim (or the sweep, should the worker
 * die first), the key has no head: an enqueue then goes behind its held tasks, never ahead of them.</li>
 * <li>The claim of held tasks that followed their head in a group and failed ({@link KeyRuns}), and the sweep of
 * keys left without a head, which every heartbeat runs.</li>
 * </ul>
 */
final class KeyStatements {

	// TaskRepository.COMPLETE(_WITH_HISTORY) with the promotion. Parameters: 1 id, 2 session, 3 attempt. Returns the
	// rows deleted.
	private static final String COMPLETE = """
			WITH completed AS (
			    DELETE FROM %1$s WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ? RETURNING *),
			%2$s
			SELECT count(*) FROM completed
			""";

	// The ids of the completed tasks and the tasks OrderedKeys.HAND_OFF handed off, as TaskClaims.claimResult reads
	// them; the end of the complete-all below, and of the fold of completions into a claim (TaskClaims), where %1$s
	// is what a fair claim adds to each row.
	private static final String COMPLETED_AND_HANDED_OFF_OF = """
			SELECT id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, false%1$s
			FROM completed
			UNION ALL
			SELECT *, false, true%1$s FROM promoted WHERE claimed_by IS NOT NULL
			""";

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

	// The end of the claims with hand-offs, as handOffResult reads it: the claimed tasks, those handed off, and after
	// each task handed off up to :following tasks of its key that come next (for group commit, which runs them in the
	// group that runs the handed-off task, see worker/KeyRuns): still held, so shown as they will be once claimed by
	// the same session, with their ordering_seq and whether they are due (%2$s is OrderedKeys.HELD; %3$s to %5$s
	// their times as the driver's claims return them, StorageDriver#claimedTime).
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

	private final JdbcClient jdbc;

	private final String complete;

	private final String completeAll;

	private final String moveToDead;

	private final String handOffAndClaim;

	private final String handOffAndClaimAfter;

	private final String promote;

	private final String claimHeld;

	/** The sweep of keys left without a head, which goes on from where its last call stopped. */
	private final OrderedKeys sweep;

	/**
	 * @param history whether completions also record the task in the history table
	 * @param driver the database's claims, whose times the hand-offs return as they do, see {@link StorageDriver}
	 * @param moveToDead TaskRepository's move to the dead letters with the given CTEs on {@code dead}
	 */
	KeyStatements(HotStatements statements, JdbcClient jdbc, TaskTables tables, boolean history,
			StorageDriver driver, UnaryOperator<String> moveToDead) {
		this.statements = statements;
		this.jdbc = jdbc;
		String kept = history ? ",\n" + TaskCompletions.kept(tables).stripTrailing() : "";
		this.complete = COMPLETE.formatted(tables.task(),
				OrderedKeys.promote(tables, "completed").stripTrailing() + kept);
		this.completeAll = TaskCompletions.COMPLETE_ALL_AND.formatted(tables.task(),
				OrderedKeys.handOff(tables, "completed", driver::claimedTime).stripTrailing() + kept,
				COMPLETED_AND_HANDED_OFF_OF.formatted(""));
		this.moveToDead = moveToDead.apply(",\n" + OrderedKeys.promote(tables, "dead").stripTrailing());
		String headlessKeys = HEADLESS.formatted(tables.task(), OrderedKeys.head("x")).stripTrailing() + ",\n";
		String headless = headlessKeys + OrderedKeys.handOff(tables, "headless", driver::claimedTime);
		String take = driver.takeReady(tables);
		String end = END.formatted(tables.task(), OrderedKeys.HELD, driver.claimedTime("n.enqueued_at"),
				driver.claimedTime("n.run_at"), driver.claimedTime("now()"));
		this.handOffAndClaim = TaskClaims.folded(headless, driver.ready(tables), take, end);
		this.handOffAndClaimAfter = TaskClaims.folded(headless, driver.readyAfter(tables), take, end);
		this.claimHeld = CLAIM_HELD.formatted(tables.task(), OrderedKeys.HELD);
		this.promote = "WITH " + headlessKeys + OrderedKeys.promote(tables, "headless") + "SELECT count(*) FROM promoted\n";
		this.sweep = OrderedKeys.sweep(jdbc, tables);
	}

	/**
	 * The claims whose folded completions ({@code BATCHED}) hand the next task of each completed task's key off to
	 * the claiming session when it is due and of the queue claimed for, else make it the head for any claim.
	 */
	static TaskClaims handOffClaims(HotStatements statements, TaskTables tables, boolean history,
			StorageDriver driver) {
		return new TaskClaims(statements, tables, history, driver,
				new TaskClaims.Fold(OrderedKeys.handOff(tables, "completed", driver::claimedTime),
						COMPLETED_AND_HANDED_OFF_OF, 2, OrderedKeys::bindHandOff));
	}

	// -- settling a task with a key

	/** {@link TaskRepository#complete} of a task with an ordering key: its key's next task becomes the head. */
	boolean complete(ClaimedTask task) {
		UUID session = CompletionFences.session(task.claimedBy());
		return this.statements.query(this.complete, (statement, connection) -> {
			statement.setObject(1, task.id());
			statement.setObject(2, session);
			statement.setInt(3, task.attempt());
		}, (rows) -> rows.next() && rows.getInt(1) == 1);
	}

	/** {@link TaskRepository#completeAll(UUID, List, String)} for tasks some of which have an ordering key. */
	ClaimResult completeAll(UUID session, List<ClaimedTask> tasks, @Nullable String handOffQueue) {
		CompletionFences fences = new CompletionFences(tasks);
		UUID handOffSession = (handOffQueue != null) ? CompletionFences.session(session) : null;
		return this.statements.query(this.completeAll, (statement, connection) -> {
			fences.bind(statement, connection, 1);
			OrderedKeys.bindHandOff(statement, 3, handOffQueue, handOffSession);
		}, TaskClaims::claimResult);
	}

	/** {@link TaskRepository#moveToDead} of a task with an ordering key: its key's next task becomes the head. */
	boolean moveToDead(ClaimedTask task, String error, int maxAttempts, String outcome) {
		return this.jdbc.sql(this.moveToDead)
			.param("id", task.id())
			.param("session", CompletionFences.session(task.claimedBy()))
			.param("attempt", task.attempt())
			.param("error", error)
			.param("maxAttempts", maxAttempts)
			.param("outcome", outcome)
			.update() == 1;
	}

	// -- hand-offs left to the claim loop

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
		}, KeyStatements::handOffResult);
	}

	/** {@link #handOffAndClaim} that claims like {@link TaskClaims#claimAfter}. */
	ClaimResult handOffAndClaimAfter(List<String> keys, String queue, int bucket, UUID session, int limit,
			int following, int priority, Instant after, UUID afterId) {
		@Nullable Long afterMicros = Micros.sinceEpoch(after);
		return this.statements.query(this.handOffAndClaimAfter, (statement, connection) -> {
			bindKeys(statement, connection, keys, queue, session);
			statement.setInt(TaskClaims.bindClaimAfter(statement, 5, queue, bucket, session, limit, priority, afterMicros,
					afterId), following);
		}, KeyStatements::handOffResult);
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

	/** {@link TaskRepository#promoteOrphanedKeys}. */
	int promoteOrphans(int keys) {
		return this.sweep.promoteOrphans(keys);
	}

	/** Binds HEADLESS and HAND_OFF: the keys of {@code queue}, handed off to {@code session}. */
	private static void bindKeys(PreparedStatement statement, Connection connection, List<String> keys, String queue,
			UUID session) throws SQLException {
		statement.setString(1, queue);
		statement.setArray(2, connection.createArrayOf("text", keys.toArray()));
		OrderedKeys.bindHandOff(statement, 3, queue, session);
	}

	/**
	 * Reads the rows of the claims with hand-offs ({@link #END}): the claimed tasks, those handed off, and the tasks
	 * that follow each one handed off, up to the first that is not due.
	 */
	static ClaimResult handOffResult(ResultSet rows) throws SQLException {
		List<ClaimedTask> claimed = new ArrayList<>();
		List<ClaimedTask> handedOff = new ArrayList<>();
		record Next(ClaimedTask task, long seq, boolean due) {
		}
		Map<String, List<Next>> next = new HashMap<>();
		boolean micros = TaskClaims.micros(rows);
		while (rows.next()) {
			ClaimedTask task = TaskClaims.claimedTask(rows, micros);
			long seq = rows.getLong(15);
			if (!rows.wasNull()) {
				next.computeIfAbsent(task.orderingKey(), (key) -> new ArrayList<>())
					.add(new Next(task, seq, rows.getBoolean(16)));
			}
			else {
				(rows.getBoolean(14) ? handedOff : claimed).add(task);
			}
		}
		Map<UUID, List<ClaimedTask>> following = new HashMap<>();
		for (ClaimedTask task : handedOff) {
			List<Next> after = next.getOrDefault(task.orderingKey(), List.of());
			List<ClaimedTask> due = after.stream().sorted(Comparator.comparingLong(Next::seq))
				.takeWhile(Next::due).map(Next::task).toList();
			if (!due.isEmpty()) {
				following.put(task.id(), due);
			}
		}
		return new ClaimResult(claimed, Set.of(), handedOff, following);
	}

}
