package dev.taskqueue.jdbc;

import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

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
public class TaskRepository {

	// The fence in the statements below is "claimed_by IS NOT DISTINCT FROM :session", the same as = for the
	// non-null session they are given (see session), so that no plan can use the partial index on claimed_by: after
	// an ANALYZE that saw no claimed row, = looks more selective there than on the primary key, and that index holds
	// an entry for every claim of the session that VACUUM has not removed yet, thousands per second under a held
	// xmin horizon. The primary key finds the row at once.
	private static final String COMPLETE = """
			DELETE FROM %1$s WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ?
			""";

	// COMPLETE that also keeps the task in the history (taskqueue.history.enabled). Counts as one row exactly when
	// the fenced delete does; DO UPDATE rather than DO NOTHING so that a conflict cannot pass for a lost claim.
	private static final String COMPLETE_WITH_HISTORY = """
			WITH done AS (DELETE FROM %1$s
			    WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ? RETURNING *)
			INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers)
			SELECT id, queue, payload, priority, attempt, enqueued_at, now(), headers FROM done
			ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, completed_at = excluded.completed_at
			""";

	// The completions of a "done" CTE (id, attempt), as COMPLETE_ALL explains.
	static final String DONE_BY_ID = "t.id = ANY(ARRAY(SELECT id FROM done)) AND t.id = done.id "
			+ "AND t.attempt = done.attempt";

	// Many completions in one statement, each fenced by its own claim. The rows are found by primary key through
	// = ANY of an array (DONE_BY_ID), not by a join with the unnested arrays alone: for a join the planner costs a
	// hundred index probes above one scan of a table of some thousands of rows, and hashes all of it (6 ms instead of
	// 0.7 for 200 completions on a table of 20,000 tasks, more when it is bloated).
	private static final String COMPLETE_ALL = """
			WITH done AS MATERIALIZED (SELECT * FROM unnest(?, ?) AS d(id, attempt))
			DELETE FROM %1$s t USING done
			WHERE DONE_BY_ID AND t.claimed_by IS NOT DISTINCT FROM ?
			RETURNING t.id
			""".replace("DONE_BY_ID", DONE_BY_ID);


	// Keeps the tasks of a "completed" CTE in the history (%2$s), here and in TaskClaims' fold of completions into a
	// claim.
	static final String KEPT = """
			kept AS (
			    INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers)
			    SELECT id, queue, payload, priority, attempt, enqueued_at, now(), headers FROM completed
			    ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, completed_at = excluded.completed_at)
			""";

	// COMPLETE_ALL as a "completed" CTE, followed by more CTEs on it (%2$s): KEPT with history, OrderedKeys'
	// HAND_OFF for tasks with an ordering key (OrderedCompletions), or both; then the SELECT %3$s, by default
	// COMPLETED_IDS.
	static final String COMPLETE_ALL_AND = """
			WITH done AS MATERIALIZED (SELECT * FROM unnest(?, ?) AS d(id, attempt)),
			completed AS (
			    DELETE FROM %1$s t USING done
			    WHERE DONE_BY_ID AND t.claimed_by IS NOT DISTINCT FROM ?
			    RETURNING t.*),
			%2$s
			%3$s""".replace("DONE_BY_ID", DONE_BY_ID);

	static final String COMPLETED_IDS = "SELECT id FROM completed\n";

	private static final String RETRY_LATER = """
			UPDATE %1$s SET claimed_by = NULL, claimed_at = NULL, last_error = :error,
			       run_at = now() + :delayMicros * interval '1 microsecond'
			WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt
			""";

	// The dead letter keeps batch_id: a dead task of a batch counts as dead in it. %3$s is more CTEs on "dead", empty
	// but for OrderedCompletions, which promotes the next task of the key there.
	static final String MOVE_TO_DEAD = """
			WITH dead AS (DELETE FROM %1$s
			    WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt RETURNING *)%3$s
			INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, failed_at, error, headers, batch_id)
			SELECT id, queue, payload, priority, attempt, enqueued_at, now(), :error, headers, batch_id FROM dead
			ON CONFLICT (id) DO UPDATE SET payload = excluded.payload, attempts = excluded.attempts,
			       failed_at = excluded.failed_at, error = excluded.error, headers = excluded.headers,
			       batch_id = excluded.batch_id
			""";

	// A claimed task that never started does not use up an attempt, unless it has a unique key and this would make
	// it unstarted again: another task with its key may have been enqueued since, and the unique index of unstarted
	// tasks (see UniqueEnqueues) would fail this release.
	private static final String RELEASE_UNSTARTED = """
			UPDATE %1$s SET claimed_by = NULL, claimed_at = NULL,
			       attempt = CASE WHEN unique_key IS NULL OR attempt > 1 THEN attempt - 1 ELSE attempt END
			WHERE id = ANY(:ids) AND claimed_by IS NOT DISTINCT FROM :session
			""";

	private final JdbcClient jdbc;

	private final HotStatements statements;

	private final TaskClaims claims;

	/** The statements for tasks with an ordering key: they also make the next task of the key its head. */
	private final TaskClaims orderedClaims;

	private final OrderedCompletions ordered;

	private final LimitedClaims limitedClaims;

	private final SessionEnder sessionEnder;

	private final String complete, completeAll, retryLater, moveToDead, releaseUnstarted;

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
		this.claims = new TaskClaims(this.statements, tables, history, false);
		this.orderedClaims = new TaskClaims(this.statements, tables, history, true);
		this.ordered = new OrderedCompletions(this.statements, this.jdbc, tables, history);
		this.complete = history ? COMPLETE_WITH_HISTORY.formatted(tables.task(), tables.history())
				: COMPLETE.formatted(tables.task());
		this.completeAll = history
				? COMPLETE_ALL_AND.formatted(tables.task(), KEPT.formatted(tables.task(), tables.history()).stripTrailing(),
						COMPLETED_IDS)
				: COMPLETE_ALL.formatted(tables.task());
		this.retryLater = RETRY_LATER.formatted(tables.task());
		this.moveToDead = MOVE_TO_DEAD.formatted(tables.task(), tables.deadTask(), "");
		this.releaseUnstarted = RELEASE_UNSTARTED.formatted(tables.task());
		this.limitedClaims = new LimitedClaims(dataSource, tables, this, retry);
	}

	/** The claims of queues with cluster-wide limits, which take the queue's lock before {@link #claim}. */
	public LimitedClaims limitedClaims() {
		return this.limitedClaims;
	}

	/**
	 * Claims up to {@code limit} ready tasks of {@code queue} for {@code session}: those of {@code bucket}, highest
	 * priority first, then oldest due time, and when that bucket has fewer, the rest like {@link #claimOthers}; skips
	 * tasks other sessions are claiming at the same moment. With one bucket (0) that is the queue's priority order.
	 * Claims nothing when the session no longer exists.
	 */
	public List<ClaimedTask> claim(String queue, int bucket, UUID session, int limit) {
		return this.claims.claim(queue, bucket, session, limit);
	}

	/** Claims like {@link #claim} from the buckets after {@code bucket}, then those before it, bucket by bucket. */
	public List<ClaimedTask> claimOthers(String queue, int bucket, UUID session, int limit) {
		return this.claims.claimOthers(queue, bucket, session, limit);
	}

	/**
	 * Claims tasks of {@code bucket} like {@link #claim}, starting where the bucket's previous claim ended: after the
	 * task {@code afterId} of {@code priority}, due at {@code after}, and without going on to other buckets.
	 * Cheaper when the index holds many entries of claimed or deleted tasks that VACUUM cannot remove yet, but blind
	 * to tasks that sort before that point and were due more than a second ago (released tasks, those of expired
	 * sessions, those committed by a long transaction). Run {@link #claim} now and then to take those.
	 */
	public List<ClaimedTask> claimAfter(String queue, int bucket, UUID session, int limit, int priority,
			Instant after, UUID afterId) {
		return this.claims.claimAfter(queue, bucket, session, limit, priority, after, afterId);
	}

	/**
	 * Deletes the completed {@code done} tasks (each fenced by its own claim: id, attempt, claimed_by) and claims up
	 * to {@code limit} ready tasks of {@code bucket} of {@code queue} for {@code session} like {@link #claim}, in one
	 * statement, without going on to other buckets. With a {@code limit} of 0 it only completes.
	 * @return the tasks claimed, and the ids of the {@code done} tasks deleted: those missing had lost their claim
	 */
	public ClaimResult completeAndClaim(List<ClaimedTask> done, String queue, int bucket, UUID session, int limit) {
		return claims(done).completeAndClaim(done, queue, bucket, session, limit);
	}

	/** {@link #completeAndClaim} that claims like {@link #claimAfter}. */
	public ClaimResult completeAndClaimAfter(List<ClaimedTask> done, String queue, int bucket, UUID session,
			int limit, int priority, Instant after, UUID afterId) {
		return claims(done).completeAndClaimAfter(done, queue, bucket, session, limit, priority, after, afterId);
	}

	/** Deletes a completed task; {@code false} when the claim was lost. */
	public boolean complete(ClaimedTask task) {
		if (task.orderingKey() != null) {
			return this.ordered.complete(task);
		}
		UUID session = session(task.claimedBy());
		return this.statements.update(this.complete, (statement, connection) -> {
			statement.setObject(1, task.id());
			statement.setObject(2, session);
			statement.setInt(3, task.attempt());
		}) == 1;
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
		if (anyOrdered(tasks)) {
			return this.ordered.completeAll(session, tasks, handOffQueue);
		}
		UUID[] ids = new UUID[tasks.size()];
		Integer[] attempts = new Integer[tasks.size()];
		for (int i = 0; i < ids.length; i++) {
			ids[i] = tasks.get(i).id();
			attempts[i] = tasks.get(i).attempt();
		}
		UUID fence = session(session);
		return this.statements.query(this.completeAll, (statement, connection) -> {
			statement.setArray(1, connection.createArrayOf("uuid", ids));
			statement.setArray(2, connection.createArrayOf("int4", attempts));
			statement.setObject(3, fence);
		}, (rows) -> {
			Set<UUID> deleted = new HashSet<>();
			while (rows.next()) {
				deleted.add(rows.getObject(1, UUID.class));
			}
			return new ClaimResult(List.of(), deleted);
		});
	}

	/** Makes a failed task ready again after {@code delay}; {@code false} when the claim was lost. */
	public boolean retryLater(ClaimedTask task, Duration delay, String error) {
		return fenced(this.retryLater, task).param("delayMicros", Micros.of(delay), Types.BIGINT)
			.param("error", error)
			.update() == 1;
	}

	/** Moves a task to the dead letters; {@code false} when the claim was lost. */
	public boolean moveToDead(ClaimedTask task, String error) {
		if (task.orderingKey() != null) {
			return this.ordered.moveToDead(task, error);
		}
		return fenced(this.moveToDead, task).param("error", error).update() == 1;
	}

	/** Gives back tasks that were claimed but never started, without counting an attempt. */
	public int releaseUnstarted(Collection<UUID> ids, UUID session) {
		if (ids.isEmpty()) {
			return 0;
		}
		return this.jdbc.sql(this.releaseUnstarted)
			.param("ids", new SqlArrayValue("uuid", ids.toArray()))
			.param("session", session(session))
			.update();
	}

	/** Ends the session serving a transaction from another thread (group commit's give-up), as the database can. */
	public SessionEnder sessionEnder() {
		return this.sessionEnder;
	}

	private JdbcClient.StatementSpec fenced(String sql, ClaimedTask task) {
		return this.jdbc.sql(sql)
			.param("id", task.id())
			.param("session", session(task.claimedBy()))
			.param("attempt", task.attempt());
	}

	private TaskClaims claims(List<ClaimedTask> done) {
		return anyOrdered(done) ? this.orderedClaims : this.claims;
	}

	private static boolean anyOrdered(List<ClaimedTask> tasks) {
		for (ClaimedTask task : tasks) {
			if (task.orderingKey() != null) {
				return true;
			}
		}
		return false;
	}

	/** A fence's session, never {@code null}: the fence would match unclaimed tasks. */
	static UUID session(UUID session) {
		return Objects.requireNonNull(session, "a fenced statement needs the claiming session");
	}

}
