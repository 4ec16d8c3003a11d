package dev.taskqueue.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import javax.sql.DataSource;

import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * Claims and settles tasks ({@link EnqueueRepository} inserts them). Every statement that settles a task is fenced
 * by its claim, the claiming session and the attempt it started: when the claim was lost (the session expired, or a
 * later attempt has started), it changes 0 rows and says so by returning {@code false}.
 * <p>
 * Statements run on the application's {@link DataSource} and join the current Spring-managed transaction.
 */
public class TaskRepository {

	// The end of both claims: takes the rows their "ready" CTE locked. That CTE is MATERIALIZED, so the locked set is
	// computed once and the UPDATE never sees more than :limit rows. The UPDATE finds them by primary key (= ANY of
	// an array, not a join): a join lets a generic plan, which guesses the LIMIT at a tenth of the table, hash the
	// whole table instead, and it is large when it is bloated.
	private static final String TAKE_READY = """
			UPDATE %1$s t SET claimed_by = :session, claimed_at = now(), attempt = t.attempt + 1
			WHERE t.id = ANY(ARRAY(SELECT id FROM ready))
			RETURNING t.id, t.queue, t.payload::text AS payload, t.priority, t.attempt, t.enqueued_at, t.run_at,
			          t.claimed_at, t.claimed_by, t.last_error, t.headers::text AS headers
			""";

	private static final String CLAIM = """
			WITH ready AS MATERIALIZED (
			    SELECT id FROM %1$s
			    WHERE queue = :queue AND claimed_by IS NULL AND run_at <= now()
			      AND EXISTS (SELECT 1 FROM %2$s s WHERE s.id = :session)
			    ORDER BY priority DESC, run_at, id
			    LIMIT :limit
			    FOR UPDATE SKIP LOCKED)
			""" + TAKE_READY;

	// CLAIM for a queue that knows where its previous claim ended (task :afterId of priority :priority, due at
	// :after), so that the scan need not walk the index entries of tasks claimed since: a held-open transaction
	// elsewhere keeps VACUUM from removing them, and each would cost a heap visit. Same order as CLAIM, in three
	// ranges: higher priorities due in the last second, the same priority after (:after, :afterId) (or from a second
	// ago, if earlier), lower priorities. Tasks due before those bounds (released, recovered from an expired session,
	// or committed by a transaction that ran for more than a second) are left to the next CLAIM, which the worker
	// runs every second or so.
	private static final String CLAIM_AFTER = """
			WITH ready AS MATERIALIZED (
			    SELECT id FROM (
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = :queue AND claimed_by IS NULL AND priority > :priority
			              AND run_at >= now() - interval '1 second' AND run_at <= now()
			            ORDER BY priority DESC, run_at, id
			            LIMIT :limit
			            FOR UPDATE SKIP LOCKED) higher
			        UNION ALL
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = :queue AND claimed_by IS NULL AND priority = :priority
			              AND (run_at, id) > (
			                  LEAST(timestamptz 'epoch' + :afterMicros * interval '1 microsecond',
			                        now() - interval '1 second'),
			                  CASE WHEN timestamptz 'epoch' + :afterMicros * interval '1 microsecond'
			                            <= now() - interval '1 second'
			                       THEN CAST(:afterId AS uuid) ELSE uuid '00000000-0000-0000-0000-000000000000' END)
			              AND run_at <= now()
			            ORDER BY run_at, id
			            LIMIT :limit
			            FOR UPDATE SKIP LOCKED) same
			        UNION ALL
			        SELECT id FROM (
			            SELECT id FROM %1$s
			            WHERE queue = :queue AND claimed_by IS NULL AND priority < :priority AND run_at <= now()
			            ORDER BY priority DESC, run_at, id
			            LIMIT :limit
			            FOR UPDATE SKIP LOCKED) lower
			    ) next
			    WHERE EXISTS (SELECT 1 FROM %2$s s WHERE s.id = :session)
			    LIMIT :limit)
			""" + TAKE_READY;

	// The fence in the statements below is "claimed_by IS NOT DISTINCT FROM :session", the same as = for the
	// non-null session they are given (see fenced), so that no plan can use the partial index on claimed_by: after
	// an ANALYZE that saw no claimed row, = looks more selective there than on the primary key, and that index holds
	// an entry for every claim of the session that VACUUM has not removed yet, thousands per second under a held
	// xmin horizon. The primary key finds the row at once.
	private static final String COMPLETE = """
			DELETE FROM %1$s WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt
			""";

	// COMPLETE that also keeps the task in the history (taskqueue.history.enabled). Counts as one row exactly when
	// the fenced delete does; DO UPDATE rather than DO NOTHING so that a conflict cannot pass for a lost claim.
	private static final String COMPLETE_WITH_HISTORY = """
			WITH done AS (DELETE FROM %1$s
			    WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt RETURNING *)
			INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers)
			SELECT id, queue, payload, priority, attempt, enqueued_at, now(), headers FROM done
			ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, completed_at = excluded.completed_at
			""";

	// Many completions in one statement, each fenced by its own claim.
	private static final String COMPLETE_ALL = """
			DELETE FROM %1$s t USING unnest(:ids, :attempts) AS done(id, attempt)
			WHERE t.id = done.id AND t.attempt = done.attempt AND t.claimed_by IS NOT DISTINCT FROM :session
			RETURNING t.id
			""";

	// COMPLETE_ALL that also keeps the tasks in the history (taskqueue.history.enabled).
	private static final String COMPLETE_ALL_WITH_HISTORY = """
			WITH completed AS (
			    DELETE FROM %1$s t USING unnest(:ids, :attempts) AS done(id, attempt)
			    WHERE t.id = done.id AND t.attempt = done.attempt AND t.claimed_by IS NOT DISTINCT FROM :session
			    RETURNING t.*),
			kept AS (
			    INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers)
			    SELECT id, queue, payload, priority, attempt, enqueued_at, now(), headers FROM completed
			    ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, completed_at = excluded.completed_at)
			SELECT id FROM completed
			""";

	private static final String RETRY_LATER = """
			UPDATE %1$s SET claimed_by = NULL, claimed_at = NULL, last_error = :error,
			       run_at = now() + :delayMicros * interval '1 microsecond'
			WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt
			""";

	private static final String MOVE_TO_DEAD = """
			WITH dead AS (DELETE FROM %1$s
			    WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt RETURNING *)
			INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, failed_at, error, headers)
			SELECT id, queue, payload, priority, attempt, enqueued_at, now(), :error, headers FROM dead
			ON CONFLICT (id) DO UPDATE SET payload = excluded.payload, attempts = excluded.attempts,
			       failed_at = excluded.failed_at, error = excluded.error, headers = excluded.headers
			""";

	// A claimed task that never started does not use up an attempt.
	private static final String RELEASE_UNSTARTED = """
			UPDATE %1$s SET claimed_by = NULL, claimed_at = NULL, attempt = attempt - 1
			WHERE id = ANY(:ids) AND claimed_by IS NOT DISTINCT FROM :session
			""";

	private static final RowMapper<ClaimedTask> CLAIMED_TASK = TaskRepository::claimedTask;

	private final JdbcClient jdbc;

	private final String claim;

	private final String claimAfter;

	private final String complete;

	private final String completeAll;

	private final String retryLater;

	private final String moveToDead;

	private final String releaseUnstarted;

	public TaskRepository(DataSource dataSource, TaskTables tables) {
		this(dataSource, tables, false);
	}

	/**
	 * @param dataSource the application's data source
	 * @param tables the table names
	 * @param history whether completions also record the task in the history table
	 */
	public TaskRepository(DataSource dataSource, TaskTables tables, boolean history) {
		this.jdbc = JdbcClient.create(dataSource);
		this.claim = CLAIM.formatted(tables.task(), tables.session());
		this.claimAfter = CLAIM_AFTER.formatted(tables.task(), tables.session());
		this.complete = history ? COMPLETE_WITH_HISTORY.formatted(tables.task(), tables.history())
				: COMPLETE.formatted(tables.task());
		this.completeAll = history ? COMPLETE_ALL_WITH_HISTORY.formatted(tables.task(), tables.history())
				: COMPLETE_ALL.formatted(tables.task());
		this.retryLater = RETRY_LATER.formatted(tables.task());
		this.moveToDead = MOVE_TO_DEAD.formatted(tables.task(), tables.deadTask());
		this.releaseUnstarted = RELEASE_UNSTARTED.formatted(tables.task());
	}

	/**
	 * Claims up to {@code limit} ready tasks of {@code queue} for {@code session}, highest priority first, then
	 * oldest due time, skipping tasks other sessions are claiming at the same moment. Claims nothing when the
	 * session no longer exists.
	 */
	public List<ClaimedTask> claim(String queue, UUID session, int limit) {
		return this.jdbc.sql(this.claim)
			.param("queue", queue)
			.param("session", session)
			.param("limit", limit)
			.query(CLAIMED_TASK)
			.list();
	}

	/**
	 * Claims like {@link #claim}, starting where the queue's previous claim ended: after the task {@code afterId} of
	 * {@code priority}, due at {@code after}. Cheaper when the index holds many entries of claimed or deleted tasks
	 * that VACUUM cannot remove yet, but blind to tasks that sort before that point and were due more than a second
	 * ago (released tasks, those of expired sessions, those committed by a long transaction). Run {@link #claim} now
	 * and then to take those.
	 */
	public List<ClaimedTask> claimAfter(String queue, UUID session, int limit, int priority, Instant after,
			UUID afterId) {
		return this.jdbc.sql(this.claimAfter)
			.param("queue", queue)
			.param("session", session)
			.param("limit", limit)
			.param("priority", priority)
			.param("afterMicros", Micros.sinceEpoch(after), Types.BIGINT)
			.param("afterId", afterId)
			.query(CLAIMED_TASK)
			.list();
	}

	/** Deletes a completed task; {@code false} when the claim was lost. */
	public boolean complete(ClaimedTask task) {
		return fenced(this.complete, task).update() == 1;
	}

	/**
	 * Deletes the completed {@code tasks}, all claimed by {@code session}, with one statement.
	 * @return the ids of the tasks deleted; those missing had lost their claim
	 */
	public List<UUID> completeAll(UUID session, List<ClaimedTask> tasks) {
		UUID[] ids = new UUID[tasks.size()];
		Integer[] attempts = new Integer[tasks.size()];
		for (int i = 0; i < ids.length; i++) {
			ids[i] = tasks.get(i).id();
			attempts[i] = tasks.get(i).attempt();
		}
		return this.jdbc.sql(this.completeAll)
			.param("ids", new SqlArrayValue("uuid", (Object[]) ids))
			.param("attempts", new SqlArrayValue("int4", (Object[]) attempts))
			.param("session", session(session))
			.query((rs, row) -> rs.getObject(1, UUID.class))
			.list();
	}

	/** Makes a failed task ready again after {@code delay}; {@code false} when the claim was lost. */
	public boolean retryLater(ClaimedTask task, Duration delay, String error) {
		return fenced(this.retryLater, task).param("delayMicros", Micros.of(delay), Types.BIGINT)
			.param("error", error)
			.update() == 1;
	}

	/** Moves a task to the dead letters; {@code false} when the claim was lost. */
	public boolean moveToDead(ClaimedTask task, String error) {
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

	/**
	 * Ends the database backend {@code pid} and so rolls back its transaction and frees its locks.
	 * @return whether the backend was there to be signalled
	 */
	public boolean terminateBackend(int pid) {
		return Boolean.TRUE
			.equals(this.jdbc.sql("SELECT pg_terminate_backend(:pid)").param("pid", pid).query(Boolean.class).single());
	}

	private JdbcClient.StatementSpec fenced(String sql, ClaimedTask task) {
		return this.jdbc.sql(sql)
			.param("id", task.id())
			.param("session", session(task.claimedBy()))
			.param("attempt", task.attempt());
	}

	/** A fence's session, never {@code null}: the fence would match unclaimed tasks. */
	private static UUID session(UUID session) {
		return Objects.requireNonNull(session, "a fenced statement needs the claiming session");
	}

	// OffsetDateTime rather than getTimestamp: no Calendar per value on the claim's hot path.
	private static Instant instant(ResultSet rs, String column) throws SQLException {
		return rs.getObject(column, OffsetDateTime.class).toInstant();
	}

	private static ClaimedTask claimedTask(ResultSet rs, int row) throws SQLException {
		return new ClaimedTask(rs.getObject("id", UUID.class), rs.getString("queue"), rs.getString("payload"),
				rs.getInt("priority"), rs.getInt("attempt"), instant(rs, "enqueued_at"), instant(rs, "run_at"),
				instant(rs, "claimed_at"), rs.getObject("claimed_by", UUID.class), rs.getString("last_error"),
				rs.getString("headers"));
	}

}
