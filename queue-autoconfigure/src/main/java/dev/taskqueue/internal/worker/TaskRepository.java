package dev.taskqueue.internal.worker;

import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.AttemptLog;
import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.Micros;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * Claims and settles tasks ({@link EnqueueRepository} inserts them). Every statement that settles a task is fenced
 * by its claim, the claiming session and the attempt it started: when the claim was lost (the session expired, or a
 * later attempt has started), it changes 0 rows and says so by returning {@code false}.
 * <p>
 * Statements run on the application's {@link DataSource} and join the current Spring-managed transaction. Claims and
 * completions, which a worker runs for every task, are plain JDBC ({@link HotStatements}); the rest use
 * {@link JdbcClient}.
 */
class TaskRepository {

	// The fence in the statements below is "claimed_by IS NOT DISTINCT FROM :session", as in TaskCompletions', and
	// for the same reason.
	// The result a handler gave (TaskContext.result), inserted in the transaction that completes its task, before the
	// completion and fenced like it: a claim lost inserts nothing, and the transaction rolls back anyway. A statement
	// of its own rather than a part of every completion statement: a handler that gives no result does not run it.
	// DO UPDATE: a group that is given up and run again alone inserts it again in a new transaction of the same claim.
	private static final String KEEP_RESULT = """
			INSERT INTO %2$s (id, queue, batch_id, result)
			SELECT id, queue, batch_id, CAST(? AS jsonb) FROM %1$s
			WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ?
			ON CONFLICT (id) DO UPDATE SET result = excluded.result, completed_at = now()
			""";

	// %2$s appends the attempt to the task's log (AttemptLog), from the values the row has before this update.
	private static final String RETRY_LATER = """
			UPDATE %1$s t SET claimed_by = NULL, claimed_at = NULL, last_error = :error,
			       run_at = now() + :delayMicros * interval '1 microsecond', attempt_log = %2$s
			WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt
			""";

	// The dead letter keeps batch_id: a dead task of a batch counts as dead in it; and its keys, the fairness key so
	// that a retry gives it back to its tenant (DeadTaskRepository). %3$s is more CTEs on "dead", empty
	// but for KeyStatements, which promotes the next task of the key there. Its attempts are at most
	// :maxAttempts: a task whose last attempt ended without an outcome (its worker died) is claimed once more only
	// to be given up, and that claim ran nothing: its log (%4$s, AttemptLog) gets no element for it, the attempt
	// before was recorded as lost when its instance's claim was taken back.
	private static final String MOVE_TO_DEAD = """
			WITH dead AS (DELETE FROM %1$s
			    WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt RETURNING *)%3$s
			INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, failed_at, error, headers, batch_id,
			                  unique_key, ordering_key, fairness_key, attempt_log)
			SELECT id, queue, payload, priority, LEAST(attempt, :maxAttempts), enqueued_at, now(), :error, headers,
			       batch_id, unique_key, ordering_key, fairness_key,
			       CASE WHEN dead.attempt > :maxAttempts THEN dead.attempt_log ELSE %4$s END FROM dead
			ON CONFLICT (id) DO UPDATE SET payload = excluded.payload, attempts = excluded.attempts,
			       failed_at = excluded.failed_at, error = excluded.error, headers = excluded.headers,
			       batch_id = excluded.batch_id, unique_key = excluded.unique_key, ordering_key = excluded.ordering_key,
			       fairness_key = excluded.fairness_key, attempt_log = excluded.attempt_log
			""";

	/** {@link #MOVE_TO_DEAD} of {@code tables}, with {@code more} CTEs on "dead". */
	static String moveToDead(TaskTables tables, String more) {
		return MOVE_TO_DEAD.formatted(tables.task(), tables.deadTask(), more,
				AttemptLog.append("dead", tables, ":outcome", ":error"));
	}

	// A claimed task that never started does not use up an attempt, unless it has a unique key and this would make
	// it unstarted again: another task with its key may have been enqueued since, and the unique index of unstarted
	// tasks (see UniqueEnqueues) would fail this release.
	private static final String RELEASE_UNSTARTED = """
			UPDATE %1$s SET claimed_by = NULL, claimed_at = NULL,
			       attempt = CASE WHEN unique_key IS NULL OR attempt > 1 THEN attempt - 1 ELSE attempt END
			WHERE id = ANY(:ids) AND claimed_by IS NOT DISTINCT FROM :session
			""";

	// A task whose handler was interrupted by its worker's shutdown: ready again at once, fenced by its claim like any
	// outcome. A deploy must not use up attempts, so its attempt is not counted, but only for its first
	// FREE_SHUTDOWN_GIVE_BACKS give-backs: a task that outlasts every shutdown would otherwise never end, so later ones
	// count like any interrupted attempt. A unique task on its first attempt keeps it counted, as in
	// RELEASE_UNSTARTED.
	private static final String GIVE_BACK_AT_SHUTDOWN = """
			UPDATE %1$s SET claimed_by = NULL, claimed_at = NULL, run_at = LEAST(run_at, now()),
			       shutdown_give_backs = shutdown_give_backs + 1,
			       attempt = CASE WHEN shutdown_give_backs < :free AND (unique_key IS NULL OR attempt > 1)
			                      THEN attempt - 1 ELSE attempt END
			WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt
			""";

	// Whether a claim that a completion found gone was ended by a cancel of the running task (QueueRepository), which
	// leaves this request for the claiming session, rather than lost to another session.
	private static final String WAS_CANCELLED = """
			SELECT EXISTS (SELECT 1 FROM %1$s WHERE task_id = :id AND session_id = :session AND attempt = :attempt)
			""";

	// The claiming session has ended the attempt of a task cancelled while it ran: the request has done its work.
	private static final String END_CANCELLED = """
			DELETE FROM %1$s WHERE task_id = :id AND session_id = :session RETURNING coalesce(requested_by, '')
			""";

	/**
	 * How many times a task may be given back by a worker that shut down while its handler ran without that counting
	 * an attempt; from the next one on, such a give-back counts (see docs/failure-semantics.md).
	 */
	public static final int FREE_SHUTDOWN_GIVE_BACKS = 3;

	private final JdbcClient jdbc;

	private final HotStatements statements;

	private final TaskClaims claims;

	/** The claims whose folded completions hand the next tasks of their ordering keys off. */
	private final TaskClaims handOffClaims;

	/** The statements for tasks with an ordering key: they also make the next task of the key its head. */
	private final KeyStatements keys;

	private final LimitedClaims limitedClaims;

	private final SessionEnder sessionEnder;

	private final TaskCompletions completions;

	// The tenants of a queue with due tasks, counted up to 2 (docs/fairness.md), and the first key with due tasks.
	// For a queue that never used a key, one probe of taskqueue_task_fair_idx that finds nothing, and nothing else
	// (CASE runs only the branch it reaches). With one key, a probe for a due key after it (one descent of the same
	// index past the first key's range), then whether tasks without a key are due among the bucket's :window first
	// ready ones, as far as a fair claim of :window would see them.
	// Parameters: 1 queue; 2 queue; 3 queue, 4 bucket, 5 window.
	static final String FAIR_TENANTS = """
			WITH f AS MATERIALIZED (
			    SELECT (SELECT fairness_key FROM %1$s
			            WHERE queue = ? AND fairness_key IS NOT NULL AND claimed_by IS NULL AND run_at <= now()
			            ORDER BY fairness_key LIMIT 1) AS k)
			SELECT f.k, CASE
			    WHEN f.k IS NULL THEN 0
			    WHEN EXISTS (SELECT 1 FROM %1$s
			                 WHERE queue = ? AND fairness_key > f.k AND claimed_by IS NULL AND run_at <= now()) THEN 2
			    WHEN EXISTS (SELECT 1 FROM (
			                     SELECT fairness_key FROM %1$s
			                     WHERE queue = ? AND bucket = ? AND claimed_by IS NULL AND run_at <= now()
			                     ORDER BY priority DESC, run_at, id
			                     LIMIT ?) head
			                 WHERE head.fairness_key IS NULL) THEN 2
			    ELSE 1 END
			FROM f
			""";

	private final String fairTenants;

	// The next key after :after (round-robin, wrapping) other than :key with due tasks, in a queue whose claims are
	// plain while :key is its one tenant; NULL when there is none. The ranges of taskqueue_task_fair_idx between :after
	// and :key, after both, from the first key to :key, then after :key: each step only when the one before found
	// nothing, and none reads :key's range, whose start the entries of its claimed tasks crowd until VACUUM.
	// Parameters: 1 queue, 2 after, 3 key; 4 queue, 5 after, 6 key; 7 queue, 8 key; 9 queue, 10 key.
	private static final String OTHER_FAIRNESS_KEY = """
			SELECT COALESCE(
			    (SELECT fairness_key FROM %1$s
			     WHERE queue = ? AND fairness_key > ? AND fairness_key < ? AND claimed_by IS NULL AND run_at <= now()
			     ORDER BY fairness_key LIMIT 1),
			    (SELECT fairness_key FROM %1$s
			     WHERE queue = ? AND fairness_key > greatest(CAST(? AS text), CAST(? AS text)) AND claimed_by IS NULL
			       AND run_at <= now()
			     ORDER BY fairness_key LIMIT 1),
			    (SELECT fairness_key FROM %1$s
			     WHERE queue = ? AND fairness_key IS NOT NULL AND fairness_key < ? AND claimed_by IS NULL
			       AND run_at <= now()
			     ORDER BY fairness_key LIMIT 1),
			    (SELECT fairness_key FROM %1$s
			     WHERE queue = ? AND fairness_key > ? AND claimed_by IS NULL AND run_at <= now()
			     ORDER BY fairness_key LIMIT 1))
			""";

	private final String otherFairnessKey;

	private final String retryLater, moveToDead, releaseUnstarted, giveBackAtShutdown, keepResult, wasCancelled,
			endCancelled;

	public TaskRepository(DataSource dataSource, TaskTables tables) {
		this(dataSource, tables, false);
	}

	/** A repository for PostgreSQL, see the next constructor. */
	public TaskRepository(DataSource dataSource, TaskTables tables, boolean history) {
		this(dataSource, tables, history, DatabaseDialect.of(Database.POSTGRESQL, true), SerializationRetry.none());
	}

	/**
	 * @param dataSource the application's data source
	 * @param tables the table names
	 * @param history whether completions also record the task in the history table
	 * @param dialect what the database can do
	 * @param retry how the claims of limited queues, transactions of their own, retry serialization failures
	 */
	public TaskRepository(DataSource dataSource, TaskTables tables, boolean history, DatabaseDialect dialect,
			SerializationRetry retry) {
		this.sessionEnder = new SessionEnder(dataSource, dialect.sessionEnd());
		JdbcTemplate jdbcTemplate = new JdbcTemplate(dataSource);
		this.jdbc = JdbcClient.create(jdbcTemplate);
		this.statements = new HotStatements(dataSource, jdbcTemplate.getExceptionTranslator());
		StorageDriver driver = StorageDriver.of(dialect.database());
		this.claims = new TaskClaims(this.statements, tables, history, driver, null);
		this.handOffClaims = KeyStatements.handOffClaims(this.statements, tables, history, driver);
		this.keys = new KeyStatements(this.statements, this.jdbc, tables, history, driver,
				(more) -> moveToDead(tables, more));
		this.completions = new TaskCompletions(this.statements, tables, history);
		this.fairTenants = FAIR_TENANTS.formatted(tables.task());
		this.otherFairnessKey = OTHER_FAIRNESS_KEY.formatted(tables.task());
		this.retryLater = RETRY_LATER.formatted(tables.task(), AttemptLog.append("t", tables, ":outcome", ":error"));
		this.moveToDead = moveToDead(tables, "");
		this.releaseUnstarted = RELEASE_UNSTARTED.formatted(tables.task());
		this.giveBackAtShutdown = GIVE_BACK_AT_SHUTDOWN.formatted(tables.task());
		this.keepResult = KEEP_RESULT.formatted(tables.task(), tables.result());
		this.wasCancelled = WAS_CANCELLED.formatted(tables.cancelRequest());
		this.endCancelled = END_CANCELLED.formatted(tables.cancelRequest());
		this.limitedClaims = new LimitedClaims(dataSource, tables, this.claims, retry);
	}

	/** The claims of queues with cluster-wide limits, which take the queue's lock before {@link #claim}. */
	public LimitedClaims limitedClaims() {
		return this.limitedClaims;
	}

	/**
	 * Runs one claim statement: claims up to {@code request.limit()} ready tasks of its queue for its session, highest
	 * priority first, then oldest due time, skipping tasks other sessions are claiming at the same moment, and writes
	 * the outcomes it carries in the same round trip (see {@link TaskClaims.Request}). Claims nothing when the session
	 * no longer exists.
	 * @return the tasks claimed, the ids of the {@code completed} tasks deleted (those missing had lost their claim),
	 * and the tasks handed off with those that follow them
	 */
	public ClaimResult claim(TaskClaims.Request request) {
		String queue = request.queue();
		int bucket = request.bucket();
		UUID session = request.session();
		int limit = request.limit();
		ClaimedTask after = request.after();
		return switch (request.reach()) {
			case BUCKET_THEN_OTHERS -> new ClaimResult(claim(queue, bucket, session, limit), Set.of());
			case OTHERS -> new ClaimResult(claimOthers(queue, bucket, session, limit), Set.of());
			case BUCKET -> {
				if (request.fairAfter() != null) {
					yield claims(request.completed()).completeAndClaimFair(request.completed(), queue, bucket, session,
							limit, request.fairAfter());
				}
				if (!request.headlessKeys().isEmpty()) {
					yield (after != null) ? handOffAndClaimAfter(request.headlessKeys(), queue, bucket, session, limit,
							request.following(), after.priority(), after.runAt(), after.id())
							: handOffAndClaim(request.headlessKeys(), queue, bucket, session, limit,
									request.following());
				}
				yield (after != null) ? completeAndClaimAfter(request.completed(), queue, bucket, session, limit,
						after.priority(), after.runAt(), after.id())
						: completeAndClaim(request.completed(), queue, bucket, session, limit);
			}
		};
	}

	/**
	 * The tenants of {@code queue} with due tasks, counted up to 2: its fairness keys and, with one key, the tasks
	 * without a key due among the first {@code window} ready ones of {@code bucket}; with one, the key.
	 */
	public ClaimResult.FairTenants fairTenants(String queue, int bucket, int window) {
		return this.statements.query(this.fairTenants, (statement, connection) -> {
			statement.setString(1, queue);
			statement.setString(2, queue);
			statement.setString(3, queue);
			statement.setInt(4, bucket);
			statement.setInt(5, window);
		}, (rows) -> {
			rows.next();
			int count = rows.getInt(2);
			return new ClaimResult.FairTenants(count, (count == 1) ? rows.getString(1) : null);
		});
	}

	/**
	 * The next fairness key after {@code after} (round-robin) other than {@code key} with due tasks in {@code queue},
	 * or {@code null} when there is none.
	 */
	public @Nullable String otherFairnessKey(String queue, String key, String after) {
		return this.statements.query(this.otherFairnessKey, (statement, connection) -> {
			statement.setString(1, queue);
			statement.setString(2, after);
			statement.setString(3, key);
			statement.setString(4, queue);
			statement.setString(5, after);
			statement.setString(6, key);
			statement.setString(7, queue);
			statement.setString(8, key);
			statement.setString(9, queue);
			statement.setString(10, key);
		}, (rows) -> rows.next() ? rows.getString(1) : null);
	}

	/**
	 * Claims up to {@code limit} due tasks of {@code queue} with fairness key {@code key} for {@code session}, in
	 * claim order; nothing when the session no longer exists.
	 */
	public List<ClaimedTask> claimKey(String queue, String key, UUID session, int limit) {
		return this.claims.claimKey(queue, key, session, limit);
	}

	/**
	 * Claims up to {@code limit} ready tasks of {@code queue} for {@code session}: those of {@code bucket}, highest
	 * priority first, then oldest due time, and when that bucket has fewer, the rest like {@link #claimOthers}; skips
	 * tasks other sessions are claiming at the same moment. With one bucket (0) that is the queue's priority order.
	 * Claims nothing when the session no longer exists.
	 */
	List<ClaimedTask> claim(String queue, int bucket, UUID session, int limit) {
		return this.claims.claim(queue, bucket, session, limit);
	}

	/** Claims like {@link #claim} from the buckets after {@code bucket}, then those before it, bucket by bucket. */
	List<ClaimedTask> claimOthers(String queue, int bucket, UUID session, int limit) {
		return this.claims.claimOthers(queue, bucket, session, limit);
	}

	/**
	 * Claims tasks of {@code bucket} like {@link #claim}, starting where the bucket's previous claim ended: after the
	 * task {@code afterId} of {@code priority}, due at {@code after}, and without going on to other buckets.
	 * Cheaper when the index holds many entries of claimed or deleted tasks that VACUUM cannot remove yet, but blind
	 * to tasks that sort before that point and were due more than a second ago (released tasks, those of expired
	 * sessions, those committed by a long transaction). Run {@link #claim} now and then to take those.
	 */
	List<ClaimedTask> claimAfter(String queue, int bucket, UUID session, int limit, int priority,
			Instant after, UUID afterId) {
		return this.claims.claimAfter(queue, bucket, session, limit, priority, after, afterId);
	}

	/**
	 * Deletes the completed {@code done} tasks (each fenced by its own claim: id, attempt, claimed_by) and claims up
	 * to {@code limit} ready tasks of {@code bucket} of {@code queue} for {@code session} like {@link #claim}, in one
	 * statement, without going on to other buckets. With a {@code limit} of 0 it only completes.
	 * @return the tasks claimed, and the ids of the {@code done} tasks deleted: those missing had lost their claim
	 */
	ClaimResult completeAndClaim(List<ClaimedTask> done, String queue, int bucket, UUID session, int limit) {
		return claims(done).completeAndClaim(done, queue, bucket, session, limit);
	}

	/** {@link #completeAndClaim} that claims like {@link #claimAfter}. */
	ClaimResult completeAndClaimAfter(List<ClaimedTask> done, String queue, int bucket, UUID session,
			int limit, int priority, Instant after, UUID afterId) {
		return claims(done).completeAndClaimAfter(done, queue, bucket, session, limit, priority, after, afterId);
	}

	/**
	 * Claims like {@link #completeAndClaim} without completions, handing off to {@code session} the next task of each
	 * of {@code headless}: keys of {@code queue} whose head a completion deleted and left to this claim
	 * ({@link #completeAllLeavingHeads}, {@link Completer.CompletionCommit#completeAndCommit}) that have no head
	 * yet.
	 * A next task that is not due yet becomes the head, for the claim at its due time.
	 * @param following how many of the due tasks that follow each task handed off to read as well, unclaimed
	 * @return the tasks claimed, those handed off, and those that follow them
	 */
	ClaimResult handOffAndClaim(List<String> headless, String queue, int bucket, UUID session, int limit,
			int following) {
		return this.keys.handOffAndClaim(headless, queue, bucket, session, limit, following);
	}

	/** {@link #handOffAndClaim} that claims like {@link #claimAfter}. */
	ClaimResult handOffAndClaimAfter(List<String> headless, String queue, int bucket, UUID session, int limit,
			int following, int priority, Instant after, UUID afterId) {
		return this.keys.handOffAndClaimAfter(headless, queue, bucket, session, limit, following, priority,
				after, afterId);
	}

	/**
	 * Claims held tasks for {@code session}, as a hand-off would: tasks of {@link ClaimResult#following()} that a
	 * group ran, right after their key's head and in its transaction, and that failed, so that the failure is
	 * recorded like any claimed task's. Run it after the statement that deleted the key's head.
	 * @return how many of {@code ids} were still held and are now claimed
	 */
	public int claimHeld(UUID session, List<UUID> ids) {
		return this.keys.claimHeld(session, ids);
	}

	/**
	 * Gives a head to ordering keys whose held tasks were committed after their head was deleted, looking at up to
	 * {@code keys} keys with held tasks, the next ones at the next call (the heartbeat's sweep).
	 * @return how many tasks were made their key's head
	 */
	public int promoteOrphanedKeys(int keys) {
		return this.keys.promoteOrphans(keys);
	}

	/** Makes the next task of each of {@code keys} of {@code queue} that has no head its head, for any claim. */
	public int promoteHeadless(String queue, List<String> keys) {
		return this.keys.promote(queue, keys);
	}

	/**
	 * Deletes the completed {@code tasks}, all claimed by {@code session}, with one statement, like tasks without a
	 * key: the next tasks of their ordering keys are left held, for {@link #handOffAndClaim} after the commit.
	 * @return the ids of the tasks deleted; those missing had lost their claim
	 */
	public Set<UUID> completeAllLeavingHeads(UUID session, List<ClaimedTask> tasks) {
		return this.completions.deleteAll(session, tasks).completed();
	}

	/**
	 * Keeps {@code json}, the result of {@code task}'s handler, in the current transaction, which must go on to
	 * complete the task: the result then commits with the completion or not at all.
	 * @return {@code false} when the claim was lost
	 */
	public boolean keepResult(ClaimedTask task, String json) {
		UUID session = CompletionFences.session(task.claimedBy());
		return this.statements.update(this.keepResult, (statement, connection) -> {
			statement.setString(1, json);
			statement.setObject(2, task.id());
			statement.setObject(3, session);
			statement.setInt(4, task.attempt());
		}) == 1;
	}

	/** Deletes a completed task; {@code false} when the claim was lost. */
	public boolean complete(ClaimedTask task) {
		return (task.orderingKey() != null) ? this.keys.complete(task) : this.completions.complete(task);
	}

	/**
	 * Deletes the completed {@code tasks}, all claimed by {@code session}, with one statement.
	 * @return the ids of the tasks deleted; those missing had lost their claim
	 */
	public List<UUID> completeAll(UUID session, List<ClaimedTask> tasks) {
		return List.copyOf(completeAll(session, tasks, null).completed());
	}

	/**
	 * Deletes the completed {@code tasks}, all claimed by {@code session}, with one statement, and hands the next
	 * task of each completed task's ordering key off to {@code session} when it is due and of {@code handOffQueue}
	 * (the caller must then run it), see {@link ClaimResult#handedOff()}.
	 * @param handOffQueue the queue whose tasks {@code session} may take now, or {@code null} for none
	 * @return the ids of the tasks deleted (those missing had lost their claim), and the tasks handed off
	 */
	public ClaimResult completeAll(UUID session, List<ClaimedTask> tasks, @Nullable String handOffQueue) {
		return anyOrdered(tasks) ? this.keys.completeAll(session, tasks, handOffQueue)
				: this.completions.deleteAll(session, tasks);
	}

	/** Makes a failed task ready again after {@code delay}; {@code false} when the claim was lost. */
	public boolean retryLater(ClaimedTask task, Duration delay, String error) {
		return retryLater(task, delay, error, AttemptLog.FAILED);
	}

	/**
	 * Makes a failed task ready again after {@code delay}, its attempt logged as {@code timed out} when
	 * {@code timedOut}, else as {@code failed}; {@code false} when the claim was lost.
	 */
	public boolean retryLater(ClaimedTask task, Duration delay, String error, boolean timedOut) {
		return retryLater(task, delay, error, timedOut ? AttemptLog.TIMED_OUT : AttemptLog.FAILED);
	}

	boolean retryLater(ClaimedTask task, Duration delay, String error, String outcome) {
		return fenced(this.retryLater, task).param("delayMicros", Micros.of(delay), Types.BIGINT)
			.param("error", error)
			.param("outcome", outcome)
			.update() == 1;
	}

	/** Moves a task to the dead letters; {@code false} when the claim was lost. */
	public boolean moveToDead(ClaimedTask task, String error) {
		return moveToDead(task, error, Integer.MAX_VALUE);
	}

	/**
	 * Moves a task to the dead letters with at most {@code maxAttempts} attempts; {@code false} when the claim was
	 * lost.
	 */
	public boolean moveToDead(ClaimedTask task, String error, int maxAttempts) {
		return moveToDead(task, error, maxAttempts, AttemptLog.DEAD);
	}

	/**
	 * {@link #moveToDead(ClaimedTask, String, int)} with its last attempt logged as {@code timed out} when
	 * {@code timedOut}, else as {@code dead}.
	 */
	public boolean moveToDead(ClaimedTask task, String error, int maxAttempts, boolean timedOut) {
		return moveToDead(task, error, maxAttempts, timedOut ? AttemptLog.TIMED_OUT : AttemptLog.DEAD);
	}

	private boolean moveToDead(ClaimedTask task, String error, int maxAttempts, String outcome) {
		if (task.orderingKey() != null) {
			return this.keys.moveToDead(task, error, maxAttempts, outcome);
		}
		return fenced(this.moveToDead, task).param("error", error)
			.param("maxAttempts", maxAttempts)
			.param("outcome", outcome)
			.update() == 1;
	}

	/** Gives back tasks that were claimed but never started, without counting an attempt. */
	public int releaseUnstarted(Collection<UUID> ids, UUID session) {
		if (ids.isEmpty()) {
			return 0;
		}
		return this.jdbc.sql(this.releaseUnstarted)
			.param("ids", new SqlArrayValue("uuid", ids.toArray()))
			.param("session", CompletionFences.session(session))
			.update();
	}

	/**
	 * Gives back a task whose handler was interrupted because its worker shut down: ready at once, its attempt not
	 * counted unless it was given back so {@link #FREE_SHUTDOWN_GIVE_BACKS} times already; {@code false} when the
	 * claim was lost.
	 */
	public boolean giveBackAtShutdown(ClaimedTask task) {
		return fenced(this.giveBackAtShutdown, task).param("free", FREE_SHUTDOWN_GIVE_BACKS).update() == 1;
	}

	/**
	 * Whether {@code task}'s claim ended because the task was cancelled while it ran (QueueRepository#cancel), rather
	 * than lost to another session. Asked only when a completion found its claim gone.
	 */
	public boolean wasCancelled(ClaimedTask task) {
		return this.jdbc.sql(this.wasCancelled)
			.param("id", task.id())
			.param("session", CompletionFences.session(task.claimedBy()))
			.param("attempt", task.attempt())
			.query(Boolean.class)
			.single();
	}

	/**
	 * The attempt of {@code task}, which was cancelled while it ran, has ended: its session no longer looks for the
	 * request.
	 * @return who asked, as the request names them: empty when unnamed or when there was no request
	 */
	public String endCancelled(ClaimedTask task) {
		return this.jdbc.sql(this.endCancelled)
			.param("id", task.id())
			.param("session", CompletionFences.session(task.claimedBy()))
			.query(String.class)
			.optional()
			.orElse("");
	}

	/** Ends the session serving a transaction from another thread (group commit's give-up), as the database can. */
	public SessionEnder sessionEnder() {
		return this.sessionEnder;
	}

	private JdbcClient.StatementSpec fenced(String sql, ClaimedTask task) {
		return this.jdbc.sql(sql)
			.param("id", task.id())
			.param("session", CompletionFences.session(task.claimedBy()))
			.param("attempt", task.attempt());
	}

	private TaskClaims claims(List<ClaimedTask> done) {
		return anyOrdered(done) ? this.handOffClaims : this.claims;
	}

	static boolean anyOrdered(List<ClaimedTask> tasks) {
		for (ClaimedTask task : tasks) {
			if (task.orderingKey() != null) {
				return true;
			}
		}
		return false;
	}

}
