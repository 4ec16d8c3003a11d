package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.Micros;
import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

/**
 * The claims of {@link TaskRepository}: the ready tasks a session takes, alone or in the statement that also deletes
 * the tasks the worker completed since, with the parameters they bind and the rows they read. Plain JDBC on
 * {@link HotStatements}, parameters by position and rows by column index: a worker runs them all the time. What
 * one claim statement is asked for is a {@link Request}; what it did is a {@link ClaimResult}, a value of its own
 * because the completions' statements return it too.
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
				(statement, connection) -> bindClaim(statement, 1, queue, bucket, session, limit),
				TaskClaims::claimedTasks);
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
		}, TaskClaims::claimedTasks);
	}

	List<ClaimedTask> claimAfter(String queue, int bucket, UUID session, int limit, int priority, Instant after,
			UUID afterId) {
		@Nullable Long afterMicros = Micros.sinceEpoch(after);
		return this.statements.query(this.claimAfter,
				(statement, connection) -> bindClaimAfter(statement, 1, queue, bucket, session, limit, priority,
						afterMicros, afterId),
				TaskClaims::claimedTasks);
	}

	ClaimResult completeAndClaim(List<ClaimedTask> done, String queue, int bucket, UUID session, int limit) {
		if (done.isEmpty()) {
			return new ClaimResult(claimBucket(queue, bucket, session, limit), Set.of());
		}
		CompletionFences completions = new CompletionFences(done);
		return this.statements.query(this.completeAndClaim, (statement, connection) -> {
			bindCompletions(statement, connection, completions, queue, session);
			bindClaim(statement, firstOfClaim(), queue, bucket, session, limit);
		}, TaskClaims::claimResult);
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
			bindClaimAfter(statement, firstOfClaim(), queue, bucket, session, limit, priority, afterMicros, afterId);
		}, TaskClaims::claimResult);
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
					(statement, connection) -> bindFairClaim(statement, 1, queue, bucket, session, limit,
							after),
					(rows) -> fairResult(rows, 14, false));
		}
		CompletionFences completions = new CompletionFences(done);
		return this.statements.query(this.completeAndClaimFair, (statement, connection) -> {
			bindCompletions(statement, connection, completions, queue, session);
			bindFairClaim(statement, firstOfClaim(), queue, bucket, session, limit, after);
		}, (rows) -> fairResult(rows, 16, true));
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
		}, TaskClaims::claimedTasks);
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

	// The rows: the claimed tasks the statements read, and the parameters they bind. Also what KeyStatements'
	// claims and complete-all bind and read, which are made of the same parts.

	private static List<ClaimedTask> claimedTasks(ResultSet rows) throws SQLException {
		List<ClaimedTask> tasks = new ArrayList<>();
		boolean micros = micros(rows);
		while (rows.next()) {
			tasks.add(claimedTask(rows, micros));
		}
		return tasks;
	}

	/** Reads the rows of a fold or of KeyStatements' complete-all: done at 14, handed at 15. */
	static ClaimResult claimResult(ResultSet rows) throws SQLException {
		List<ClaimedTask> claimed = new ArrayList<>();
		Set<UUID> completed = new HashSet<>();
		List<ClaimedTask> handedOff = new ArrayList<>();
		boolean micros = micros(rows);
		while (rows.next()) {
			if (rows.getBoolean(14)) {
				completed.add(rows.getObject(1, UUID.class));
			}
			else {
				(rows.getBoolean(15) ? handedOff : claimed).add(claimedTask(rows, micros));
			}
		}
		return new ClaimResult(claimed, completed, handedOff);
	}

	/**
	 * Reads the rows of a fair claim, whose column {@code nextKeyColumn} is the key the next one starts
	 * after, followed by the tenants it found and its first key; with {@code folded}, those of its fold with
	 * completions, read like {@link #claimResult}.
	 */
	private static ClaimResult fairResult(ResultSet rows, int nextKeyColumn, boolean folded) throws SQLException {
		List<ClaimedTask> claimed = new ArrayList<>();
		Set<UUID> completed = new HashSet<>();
		List<ClaimedTask> handedOff = new ArrayList<>();
		String nextKey = null;
		int tenants = -1;
		String soleKey = null;
		Map<UUID, String> keys = new HashMap<>();
		boolean micros = micros(rows);
		while (rows.next()) {
			if (folded && rows.getBoolean(14)) {
				completed.add(rows.getObject(1, UUID.class));
				continue;
			}
			String key = rows.getString(nextKeyColumn);
			nextKey = (key != null) ? key : nextKey;
			int found = rows.getInt(nextKeyColumn + 1);
			tenants = rows.wasNull() ? tenants : found;
			String first = rows.getString(nextKeyColumn + 2);
			soleKey = (first != null) ? first : soleKey;
			ClaimedTask task = claimedTask(rows, micros);
			if (folded && rows.getBoolean(15)) {
				handedOff.add(task);
			}
			else {
				claimed.add(task);
				keys.put(task.id(), Objects.requireNonNullElse(rows.getString(nextKeyColumn + 3), ""));
			}
		}
		return new ClaimResult(claimed, completed, handedOff, Map.of(), nextKey,
				(tenants < 0) ? null : new ClaimResult.FairTenants(tenants, (tenants == 1) ? soleKey : null),
				ahead(keys));
	}

	/**
	 * The tasks of a fair claim ({@code keys}: each claimed task's fairness key, {@code ""} for none) whose key took
	 * fewer of them than the key that took the most: the tenants with little due work, which a claim's share served
	 * whole, beside the one whose backlog filled the rest. Empty when every key took as many.
	 */
	private static Set<UUID> ahead(Map<UUID, String> keys) {
		Map<String, Integer> counts = new HashMap<>();
		keys.values().forEach((key) -> counts.merge(key, 1, Integer::sum));
		int most = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
		Set<UUID> ahead = new HashSet<>();
		keys.forEach((id, key) -> {
			if (counts.get(key) < most) {
				ahead.add(id);
			}
		});
		return ahead;
	}

	/**
	 * Reads the claimed columns of a claim, its first thirteen.
	 * @param micros whether its times are microseconds since the epoch, see {@link #micros}
	 */
	static ClaimedTask claimedTask(ResultSet rows, boolean micros) throws SQLException {
		return new ClaimedTask(rows.getObject(1, UUID.class), rows.getString(2), rows.getString(3), rows.getInt(4),
				rows.getInt(5), instant(rows, 6, micros), instant(rows, 7, micros), instant(rows, 8, micros),
				rows.getObject(9, UUID.class), rows.getString(10), rows.getString(11), rows.getString(12),
				rows.getInt(13));
	}

	/**
	 * Whether the claim's times, from its column 6, are microseconds since the epoch (a {@code bigint}, as
	 * {@link StorageDriver#claimedTime} returns them on PostgreSQL) rather than timestamps (on CockroachDB). Asked
	 * once per result: all its rows are alike.
	 */
	static boolean micros(ResultSet rows) throws SQLException {
		return rows.getMetaData().getColumnType(6) == Types.BIGINT;
	}

	// A number, as PostgreSQL's claims return the times: no OffsetDateTime, nor the driver's TimestampUtils per value,
	// which cost the claim thread a fifth of its CPU in a profile of W1. A timestamp on CockroachDB: OffsetDateTime
	// rather than getTimestamp, no Calendar per value.
	private static Instant instant(ResultSet rows, int column, boolean micros) throws SQLException {
		if (micros) {
			long value = rows.getLong(column);
			return Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1000L);
		}
		return rows.getObject(column, OffsetDateTime.class).toInstant();
	}

	/** Binds StorageDriver's READY and TAKE_READY from position {@code first}; returns the position after them. */
	static int bindClaim(PreparedStatement statement, int first, String queue, int bucket, UUID session,
			int limit) throws SQLException {
		statement.setString(first, queue);
		statement.setInt(first + 1, bucket);
		statement.setObject(first + 2, session);
		statement.setInt(first + 3, limit);
		statement.setObject(first + 4, session);
		return first + 5;
	}

	/**
	 * Binds StorageDriver's READY_FAIR and TAKE_READY from position {@code first}; returns the position after them.
	 * @param after the key the claim starts after, {@code ""} for the first
	 */
	private static int bindFairClaim(PreparedStatement statement, int first, String queue, int bucket, UUID session,
			int limit, String after) throws SQLException {
		// later, earlier
		statement.setString(first, queue);
		statement.setString(first + 1, after);
		statement.setString(first + 2, queue);
		statement.setString(first + 3, queue);
		statement.setString(first + 4, queue);
		statement.setString(first + 5, after);
		// keys, share
		statement.setString(first + 6, after);
		statement.setInt(first + 7, limit);
		statement.setInt(first + 8, limit);
		statement.setInt(first + 9, limit);
		statement.setInt(first + 10, limit);
		statement.setObject(first + 11, session);
		// picked: the keys' tasks, then those without a key
		statement.setString(first + 12, queue);
		statement.setString(first + 13, queue);
		statement.setInt(first + 14, bucket);
		statement.setInt(first + 15, limit);
		// filled, then TAKE_READY
		statement.setString(first + 16, queue);
		statement.setInt(first + 17, bucket);
		statement.setInt(first + 18, limit);
		statement.setObject(first + 19, session);
		return first + 20;
	}

	/**
	 * Binds StorageDriver's READY_AFTER and TAKE_READY from position {@code first}: each use of a parameter has its own.
	 * Returns the position after them.
	 */
	static int bindClaimAfter(PreparedStatement statement, int first, String queue, int bucket,
			UUID session, int limit, int priority, @Nullable Long afterMicros, UUID afterId) throws SQLException {
		// higher
		statement.setString(first, queue);
		statement.setInt(first + 1, bucket);
		statement.setInt(first + 2, priority);
		statement.setInt(first + 3, limit);
		// same
		statement.setString(first + 4, queue);
		statement.setInt(first + 5, bucket);
		statement.setInt(first + 6, priority);
		Micros.bind(statement, first + 7, afterMicros);
		Micros.bind(statement, first + 8, afterMicros);
		statement.setObject(first + 9, afterId);
		statement.setInt(first + 10, limit);
		// lower
		statement.setString(first + 11, queue);
		statement.setInt(first + 12, bucket);
		statement.setInt(first + 13, priority);
		statement.setInt(first + 14, limit);
		// the session's check, the overall limit, then TAKE_READY
		statement.setObject(first + 15, session);
		statement.setInt(first + 16, limit);
		statement.setObject(first + 17, session);
		return first + 18;
	}

	/**
	 * One claim statement, see {@link TaskRepository#claim(Request)}: where it reads, how many tasks it takes, and
	 * the outcomes it writes in the same round trip.
	 *
	 * @param queue the queue to claim from
	 * @param session the claiming session; a session that expired claims nothing
	 * @param bucket the bucket read first (0 with one bucket)
	 * @param reach how far the claim reads beyond {@code bucket}
	 * @param after where in {@code bucket} to start: after this task, the last one the bucket's previous claim took;
	 * {@code null} for the bucket's head. Only with {@link Reach#BUCKET}
	 * @param limit the most tasks to claim; 0 only writes the outcomes
	 * @param completed tasks whose completions the statement deletes, each fenced by its own claim; only with
	 * {@link Reach#BUCKET} and no {@code headlessKeys}
	 * @param headlessKeys keys of {@code queue} whose head a completion of {@code session} deleted and left to this
	 * claim: the statement hands their next tasks off to {@code session}; only with {@link Reach#BUCKET}
	 * @param following with {@code headlessKeys}, how many of the due tasks that follow each task handed off to read as
	 * well, unclaimed (a group commit runs them after it)
	 * @param fairAfter for a fair claim (docs/fairness.md), the fairness key it starts after ({@code ""} for the first),
	 * which the previous fair claim returned ({@link ClaimResult#nextFairnessKey()}); {@code null} for a claim in the
	 * queue's order. Only with {@link Reach#BUCKET}, from the head, without {@code headlessKeys}
	 */
	record Request(String queue, UUID session, int bucket, Reach reach, @Nullable ClaimedTask after, int limit,
			List<ClaimedTask> completed, List<String> headlessKeys, int following, @Nullable String fairAfter) {

		public Request {
			completed = List.copyOf(completed);
			headlessKeys = List.copyOf(headlessKeys);
			if (reach != Reach.BUCKET && (after != null || !completed.isEmpty() || !headlessKeys.isEmpty())) {
				throw new IllegalArgumentException("A claim that reads other buckets starts at their heads and writes "
						+ "no outcomes");
			}
			if (!completed.isEmpty() && !headlessKeys.isEmpty()) {
				throw new IllegalArgumentException("A claim either deletes completions or hands keys off, not both");
			}
			if (fairAfter != null && (reach != Reach.BUCKET || after != null || !headlessKeys.isEmpty())) {
				throw new IllegalArgumentException("A fair claim reads its bucket from the head and hands no keys off");
			}
		}

		/** A claim in the queue's order. */
		public Request(String queue, UUID session, int bucket, Reach reach, @Nullable ClaimedTask after, int limit,
				List<ClaimedTask> completed, List<String> headlessKeys, int following) {
			this(queue, session, bucket, reach, after, limit, completed, headlessKeys, following, null);
		}

		/** Claims up to {@code limit} ready tasks of {@code queue}, every bucket's, in the queue's order of priority. */
		public static Request of(String queue, UUID session, int limit) {
			return new Request(queue, session, 0, Reach.BUCKET_THEN_OTHERS, null, limit, List.of(), List.of(), 0);
		}

		/** How far a claim reads beyond its bucket. */
		public enum Reach {

			/** Its bucket only, from its head or from {@code after}: the claim loop's claim, which writes outcomes. */
			BUCKET,

			/** Its bucket, then when that has fewer, the buckets after it and those before it. */
			BUCKET_THEN_OTHERS,

			/** The buckets after it, then those before it, not its own: the rest of a claim whose bucket had fewer. */
			OTHERS

		}

	}

}
