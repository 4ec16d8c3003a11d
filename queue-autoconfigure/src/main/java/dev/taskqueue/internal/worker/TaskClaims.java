package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.Micros;
import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

/**
 * The claims of {@link TaskRepository}: the ready tasks a session takes, alone or in the statement that also deletes
 * the tasks the worker completed since. Plain JDBC on {@link HotStatements}: a worker runs them all the time.
 */
final class TaskClaims {

	// The start of a claim folded with the completions of BATCHED mode: one round trip and one commit
	// for both (Oban Pro folds acks into its fetch the same way), each completion fenced by its own claim
	// (CompletionFences), as the worker's session can change while completions wait.
	// The claim cannot take a task this statement deletes. Its CTEs run on one snapshot and do not see each other's
	// changes (what changing a row twice in one statement does is unpredictable), but in that snapshot the two sets
	// are disjoint: the DELETE takes a task only while its claimed_by is the session of its claim, never null, and
	// "ready" only tasks whose claimed_by IS NULL. A row changed since by another transaction is checked again in its
	// new version, which can drop it from either set, not add it. So a completed task whose claim was lost and
	// released is not deleted (nor reported completed) and may be claimed again here, as it should be.
	// Parameters: 1 ids, 2 claims.
	private static final String COMPLETED = "completed AS (\n    DELETE FROM %1$s t WHERE " + CompletionFences.FENCED
			+ "\n    RETURNING t.%2$s)\n";

	// The end of the fold: the claimed tasks, then the ids of the completed ones (done = true), then what the fold's
	// more CTEs add (handed = true, see Fold). %1$s: what a fair claim adds to each row, the key its next claim starts
	// after, the tenants and the first key it found (", next_key, ..." here, ", NULL, ..." in the rows below).
	private static final String CLAIMED_AND_COMPLETED = """
			SELECT id, queue, payload, priority, attempt, enqueued_at, run_at, claimed_at, claimed_by, last_error, headers,
			       ordering_key, bucket, false AS done, false AS handed%1$s
			FROM claimed
			UNION ALL
			""";

	private static final String COMPLETED_IDS = """
			SELECT id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, true, false%1$s
			FROM completed
			""";

	private final HotStatements statements;

	final String claim;

	final String claimOthers;

	final String claimAfter;

	final String completeAndClaim;

	final String completeAndClaimAfter;

	/** The fair claim (StorageDriver's READY_FAIR), plain and folded with completions like completeAndClaim. */
	final String claimFair;

	/** The claim of one fairness key's tasks (StorageDriver's READY_KEY). */
	final String claimKey;

	final String completeAndClaimFair;

	/** What the fold carries besides the deletes, {@code null} for nothing. */
	private final @Nullable Fold fold;

	/** Claims of PostgreSQL, see the next constructor. */
	TaskClaims(HotStatements statements, TaskTables tables, boolean history) {
		this(statements, tables, history, StorageDriver.POSTGRESQL, null);
	}

	/**
	 * @param driver the database's claims: whether they lock what they read, see {@link StorageDriver}
	 * @param fold what the folded statements carry besides the deletes, {@code null} for nothing
	 */
	TaskClaims(HotStatements statements, TaskTables tables, boolean history, StorageDriver driver,
			@Nullable Fold fold) {
		this.statements = statements;
		this.fold = fold;
		String ready = driver.ready(tables);
		String readyAfter = driver.readyAfter(tables);
		String take = driver.takeReady(tables);
		this.claim = "WITH " + ready + take;
		this.claimOthers = "WITH " + driver.readyOthers(tables) + take;
		this.claimAfter = "WITH " + readyAfter + take;
		String completed = COMPLETED.formatted(tables.task(), (history || fold != null) ? "*" : "id");
		if (history) { // keeps the completed tasks as COMPLETE_ALL_AND with KEPT does
			completed = completed.stripTrailing() + ",\n" + TaskCompletions.kept(tables);
		}
		if (fold != null) {
			completed = completed.stripTrailing() + ",\n" + fold.ctes();
		}
		String rest = (fold != null) ? fold.rows() : COMPLETED_IDS;
		String end = CLAIMED_AND_COMPLETED.formatted("") + rest.formatted("");
		this.completeAndClaim = folded(completed, ready, take, end);
		this.completeAndClaimAfter = folded(completed, readyAfter, take, end);
		this.claimFair = "WITH " + driver.readyFair(tables) + driver.takeFair(tables);
		this.claimKey = "WITH " + driver.readyKey(tables) + driver.takeReadyAsync(tables);
		// The fold's rows carry the next key, the tenants, the first key and the task's key as columns 16-19, after
		// done and handed.
		String fairEnd = CLAIMED_AND_COMPLETED.formatted(", next_key, tenants, sole_key, fairness_key")
				+ rest.formatted(", NULL, NULL, NULL, NULL");
		this.completeAndClaimFair = folded(completed, driver.readyFair(tables), driver.takeFair(tables), fairEnd);
	}

	static String folded(String completed, String ready, String take, String end) {
		return "WITH " + completed.stripTrailing() + ",\n" + ready.stripTrailing() + ",\nclaimed AS (\n"
				+ take.stripTrailing() + ")\n" + end;
	}

	/** The claim of {@code bucket}, then of the others for the rest when it came back short. */
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

	/**
	 * The fair claim: up to {@code limit} due tasks of {@code queue}, round-robin across its fairness keys from the
	 * one after {@code after}, and when they have fewer, the rest from {@code bucket}'s head; with {@code done}, in
	 * the statement that deletes them, like {@link #completeAndClaim}.
	 */
	ClaimResult completeAndClaimFair(List<ClaimedTask> done, String queue, int bucket, UUID session, int limit,
			String after) {
		if (done.isEmpty()) {
			return this.statements.query(this.claimFair,
					(statement, connection) -> ClaimRows.bindFairClaim(statement, 1, queue, bucket, session, limit,
							after),
					(rows) -> ClaimRows.fairResult(rows, 14, false));
		}
		CompletionFences completions = new CompletionFences(done);
		return this.statements.query(this.completeAndClaimFair, (statement, connection) -> {
			bindCompletions(statement, connection, completions, queue, session);
			ClaimRows.bindFairClaim(statement, firstOfClaim(), queue, bucket, session, limit, after);
		}, (rows) -> ClaimRows.fairResult(rows, 16, true));
	}

	/**
	 * Claims up to {@code limit} due tasks of {@code queue} with fairness key {@code key}, in claim order, with a
	 * commit that does not wait for the disk ({@link StorageDriver#takeReadyAsync}): such claims come one per key that
	 * shows up beside a big one (hundreds a second), each in the claim loop's thread, between the queue's own claims.
	 */
	List<ClaimedTask> claimKey(String queue, String key, UUID session, int limit) {
		return this.statements.query(this.claimKey, (statement, connection) -> {
			statement.setString(1, queue);
			statement.setString(2, key);
			statement.setObject(3, session);
			statement.setInt(4, limit);
			statement.setObject(5, session);
		}, ClaimRows::claimedTasks);
	}

	/** Binds COMPLETED and what the fold carries for a claim of {@code queue} by {@code session}. */
	private void bindCompletions(PreparedStatement statement, Connection connection, CompletionFences completions,
			String queue, UUID session) throws SQLException {
		completions.bind(statement, connection, 1);
		if (this.fold != null) {
			this.fold.binder().bind(statement, 3, queue, session);
		}
	}

	private int firstOfClaim() {
		return (this.fold != null) ? 3 + this.fold.parameters() : 3;
	}

	/**
	 * What a fold of completions into a claim carries besides the deletes: more CTEs on {@code completed}, which
	 * read its rows, their parameters after the completions', and the rows they add after the completed ids. Only
	 * the claims of {@link KeyStatements#handOffClaims} have one, which hands the next tasks of the completed tasks'
	 * ordering keys off.
	 * @param ctes the CTEs, each on {@code completed}
	 * @param rows the end of the statement after the claimed tasks: the ids of the completed tasks (done = true),
	 * then the rows the CTEs add; {@code %1$s} is what a fair claim adds to each row
	 * @param parameters how many parameters the CTEs have
	 * @param binder binds them
	 */
	record Fold(String ctes, String rows, int parameters, Binder binder) {

		/** Binds a fold's CTEs from position {@code first}, for a claim of {@code queue} by {@code session}. */
		@FunctionalInterface
		interface Binder {

			void bind(PreparedStatement statement, int first, String queue, UUID session) throws SQLException;

		}

	}

}
