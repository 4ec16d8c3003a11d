package dev.taskqueue.internal.worker;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.Micros;
import dev.taskqueue.internal.jdbc.OrderedKeys;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.QueueLimits.RateWindow;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.worker.LimitedClaim.Hold;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.SqlArrayValue;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claims of queues with cluster-wide limits ({@link QueueLimits}). One short transaction per claim: lock the queue's
 * row in {@code taskqueue_queue}, so that the claims of the queue take turns across instances; count what the
 * limits allow now; claim that many with the ordinary claim statement; count the claimed tasks in the rate window;
 * commit, which lets the next instance's claim see them. Queues without limits never come here: their claim stays
 * one auto-commit statement.
 * <p>
 * A claim counts at its transaction's {@code now()}, which is also the {@code claimed_at} the claim writes. Fixed
 * rate windows are aligned on the database clock: window {@code k} is
 * {@code [epoch + k * period, epoch + (k + 1) * period)}, so at most {@code limit} tasks of the queue have a
 * {@code claimed_at} in any one window. A window whose start is older than the row's is never used again, so a
 * transaction whose {@code now()} is stale after a long lock wait claims nothing and tries again. Sliding windows
 * keep the recent claims in the row ({@link RateLog}) and bound every interval of the period's length; they also
 * count the fixed window, which never holds them back (the fixed window's starts are among the last period's) but
 * keeps the fixed bound while instances configured with either share a queue.
 */
class LimitedClaims {

	// The row may be missing: a queue gets one the first time it is paused or claimed with a limit.
	private static final String ADD_ROW = """
			INSERT INTO %1$s (name) VALUES (:queue) ON CONFLICT (name) DO NOTHING
			""";

	private static final String LOCK = """
			SELECT name FROM %1$s WHERE name = :queue FOR UPDATE
			""";

	// Under SERIALIZABLE (CockroachDB's default, and PostgreSQL's when configured so) the counts are right too: a
	// transaction whose snapshot missed the claims of the one that held the lock before it reads what that one
	// wrote, and the database fails it (SQLSTATE 40001) rather than let both commit; the claim is then run again.
	// Only REPEATABLE READ, a snapshot without that check, is switched to READ COMMITTED.
	// A statement of its own, after LOCK, and not a CTE of it: under READ COMMITTED each statement takes a new
	// snapshot, and this one starts after the lock was granted, so it sees every claim committed by the transaction
	// that held the lock before. A statement that waited for the lock would see the locked row's newest version
	// (PostgreSQL rechecks it) but count the tasks on the snapshot it took before the wait, missing those claims.
	// The running count reads the partial index on claimed_by: proportional to the claimed tasks, not the backlog.
	// "> HELD" (%3$s) leaves out the tasks held behind their ordering key, whose claimed_by is the nil UUID (sorts
	// first).
	// :period is null without a rate limit, which makes the window columns null.
	// now and clock are read as timestamps, not as numbers of the epoch: extract() is a float8 on CockroachDB, which
	// can be a microsecond off, and the sliding log must hold exactly the claimed_at the claim writes.
	private static final String STATE = """
			SELECT current_setting('transaction_isolation') IN ('read committed', 'serializable') AS read_committed,
			       CASE WHEN :countRunning
			            THEN (SELECT count(*) FROM %2$s t WHERE t.claimed_by > %3$s AND t.queue = q.name)
			            ELSE 0 END AS running,
			       CASE WHEN q.window_start IS NULL OR q.window_start < w.start THEN 0
			            WHEN q.window_start = w.start THEN q.window_starts END AS starts,
			       (extract(epoch FROM w.start) * 1000000)::bigint AS window_micros,
			       (extract(epoch FROM w.start + :period * interval '1 microsecond' - clock_timestamp())
			           * 1000000)::bigint AS next_window_micros,
			       now() AS now, clock_timestamp() AS clock, q.rate_log_micros, q.rate_log_starts
			FROM %1$s q CROSS JOIN LATERAL (
			    SELECT timestamptz 'epoch'
			           + (floor(extract(epoch FROM now()) * 1000000 / :period) * :period) * interval '1 microsecond'
			           AS start) w
			WHERE q.name = :queue
			""";

	private static final String COUNT_STARTS = """
			UPDATE %1$s SET window_start = timestamptz 'epoch' + :window * interval '1 microsecond',
			       window_starts = :starts
			WHERE name = :queue
			""";

	// The sliding log as a whole: at most about 101 pairs (RateLog), under a kilobyte and a half, so the row stays
	// small and is never TOASTed. Arrays are bound as parameters rather than edited in SQL (unnest, array_agg), which
	// keeps the statement the same on every database. The fixed window is counted as well, see the class comment.
	private static final String LOG_STARTS = """
			UPDATE %1$s SET rate_log_micros = :micros, rate_log_starts = :logStarts,
			       window_start = timestamptz 'epoch' + :window * interval '1 microsecond', window_starts = :starts
			WHERE name = :queue
			""";

	/** The least wait before trying again after a claim found its window stale: never a busy loop. */
	private static final Duration STALE_RETRY = Duration.ofMillis(10);

	private final JdbcClient jdbc;

	private final TaskClaims claims;

	private final TransactionTemplate transactions;

	private final TransactionTemplate readCommitted;

	private final SerializationRetry retry;

	/** Whether the database's default isolation is another than READ COMMITTED, found by the first claim. */
	private volatile boolean otherDefaultIsolation;

	private final String addRow;

	private final String lock;

	private final String state;

	private final String countStarts;

	private final String logStarts;

	/**
	 * Claims with {@code claims}' statement, whose transactions run again after a serialization failure, as
	 * {@code retry} allows.
	 */
	LimitedClaims(DataSource dataSource, TaskTables tables, TaskClaims claims, SerializationRetry retry) {
		this.retry = retry;
		this.jdbc = JdbcClient.create(dataSource);
		this.claims = claims;
		DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
		this.transactions = new TransactionTemplate(manager);
		this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		// STATE relies on a new snapshot per statement. Asking for READ COMMITTED explicitly costs a round trip per
		// claim (the driver asks the server for the current level), so it is only done once STATE has found
		// that the database's default is another level.
		this.readCommitted = new TransactionTemplate(manager);
		this.readCommitted.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		this.addRow = ADD_ROW.formatted(tables.queue());
		this.lock = LOCK.formatted(tables.queue());
		this.state = STATE.formatted(tables.queue(), tables.task(), OrderedKeys.HELD);
		this.countStarts = COUNT_STARTS.formatted(tables.queue());
		this.logStarts = LOG_STARTS.formatted(tables.queue());
	}

	/**
	 * Claims up to {@code wanted} ready tasks of {@code queue} for {@code session}, as many as its limits allow now,
	 * in claim order like {@link TaskRepository#claim}.
	 */
	LimitedClaim claim(String queue, UUID session, int wanted, QueueLimits limits) {
		return claim(queue, 0, session, wanted, limits);
	}

	/** {@link #claim(String, UUID, int, QueueLimits)} that reads {@code bucket} first, see TaskRepository#claim. */
	LimitedClaim claim(String queue, int bucket, UUID session, int wanted, QueueLimits limits) {
		for (int attempt = 1;; attempt++) {
			try {
				return claimOnce(queue, bucket, session, wanted, limits); // a transaction of its own (REQUIRES_NEW)
			}
			catch (RuntimeException ex) {
				if (!this.retry.retryAfter("limited-claim", ex, attempt)) {
					throw ex;
				}
			}
		}
	}

	private LimitedClaim claimOnce(String queue, int bucket, UUID session, int wanted, QueueLimits limits) {
		LimitedClaim claim;
		try {
			claim = (this.otherDefaultIsolation ? this.readCommitted : this.transactions)
				.execute((status) -> claimLocked(queue, bucket, session, wanted, limits));
		}
		catch (OtherIsolationException ex) { // rolled back before it claimed anything
			this.otherDefaultIsolation = true;
			claim = this.readCommitted.execute((status) -> claimLocked(queue, bucket, session, wanted, limits));
		}
		return (claim != null) ? claim : new LimitedClaim(List.of(), Hold.NONE, Duration.ZERO);
	}

	private LimitedClaim claimLocked(String queue, int bucket, UUID session, int wanted, QueueLimits limits) {
		if (this.jdbc.sql(this.lock).param("queue", queue).query().listOfRows().isEmpty()) {
			this.jdbc.sql(this.addRow).param("queue", queue).update();
			this.jdbc.sql(this.lock).param("queue", queue).query().listOfRows();
		}
		State state = state(queue, limits);
		if (!state.readCommitted()) {
			throw new OtherIsolationException();
		}
		int slots = limits.concurrencyLimited() ? (int) Math.max(0, limits.globalConcurrency() - state.running())
				: Integer.MAX_VALUE;
		boolean sliding = limits.rateLimited() && limits.rateWindow() == RateWindow.SLIDING;
		// A later window has begun, or another instance logged a later claim: now() is stale, and a claim logged
		// before one already logged could make an interval that the later claim's count did not see.
		boolean stale = state.starts() == null || (sliding && state.log().latest() > state.nowMicros());
		if (limits.rateLimited() && stale) {
			return new LimitedClaim(List.of(), Hold.RATE, STALE_RETRY);
		}
		int starts = (state.starts() != null) ? state.starts() : 0;
		long period = limits.rateLimited() ? Micros.of(limits.ratePeriod()) : 0;
		long logged = sliding ? state.log().startsAfter(state.nowMicros() - period) : 0;
		int left = limits.rateLimited() ? (int) Math.max(0, limits.rateLimit() - Math.max(starts, logged))
				: Integer.MAX_VALUE;
		int allowed = Math.min(wanted, Math.min(slots, left));
		List<ClaimedTask> claimed = (allowed > 0) ? this.claims.claim(queue, bucket, session, allowed) : List.of();
		RateLog log = state.log();
		if (sliding && !claimed.isEmpty()) {
			log = log.add(state.nowMicros(), claimed.size(), period);
			this.jdbc.sql(this.logStarts)
				.param("micros", new SqlArrayValue("int8", (Object[]) log.micros()))
				.param("logStarts", new SqlArrayValue("int8", (Object[]) log.starts()))
				.param("window", state.windowMicros())
				.param("starts", starts + claimed.size())
				.param("queue", queue)
				.update();
		}
		else if (limits.rateLimited() && !claimed.isEmpty()) {
			this.jdbc.sql(this.countStarts)
				.param("window", state.windowMicros())
				.param("starts", starts + claimed.size())
				.param("queue", queue)
				.update();
		}
		if (left - claimed.size() <= 0) {
			// Sliding: the oldest logged claim leaves the last period first, which frees its starts.
			Long oldest = sliding && logged >= starts ? log.oldestAfter(state.nowMicros() - period) : null;
			Duration retryIn = (oldest != null) ? retryAfter(oldest + period - state.clockMicros())
					: state.nextWindow();
			return new LimitedClaim(claimed, Hold.RATE, retryIn);
		}
		return new LimitedClaim(claimed, (slots - claimed.size() <= 0) ? Hold.SLOT : Hold.NONE, Duration.ZERO);
	}

	/**
	 * How many tasks of {@code queue} count against its rate limit now: those claimed in its current fixed window,
	 * or in the last period for a sliding one; for the queue statistics. Call it in a transaction or not; it
	 * changes nothing.
	 */
	int startsInWindow(String queue, QueueLimits limits) {
		Duration period = limits.ratePeriod();
		if (period == null) {
			return 0;
		}
		List<State> states = this.jdbc.sql(this.state)
			.param("countRunning", false)
			.param("period", Micros.of(period), Types.BIGINT)
			.param("queue", queue)
			.query(LimitedClaims::state)
			.list();
		if (states.isEmpty()) {
			return 0;
		}
		State state = states.get(0);
		if (limits.rateWindow() == RateWindow.SLIDING) {
			return (int) state.log().startsAfter(state.nowMicros() - Micros.of(period));
		}
		return (state.starts() != null) ? state.starts() : 0;
	}

	private State state(String queue, QueueLimits limits) {
		return this.jdbc.sql(this.state)
			.param("countRunning", limits.concurrencyLimited())
			.param("period", limits.rateLimited() ? Micros.of(limits.ratePeriod()) : null, Types.BIGINT)
			.param("queue", queue)
			.query(LimitedClaims::state)
			.single();
	}

	private static State state(ResultSet rs, int row) throws SQLException {
		int starts = rs.getInt("starts");
		Integer windowStarts = rs.wasNull() ? null : starts;
		return new State(rs.getBoolean("read_committed"), rs.getLong("running"), windowStarts,
				rs.getLong("window_micros"), retryAfter(rs.getLong("next_window_micros")), micros(rs, "now"),
				micros(rs, "clock"), RateLog.of(array(rs, "rate_log_micros"), array(rs, "rate_log_starts")));
	}

	/** A wait of {@code micros}, at least a millisecond: never a busy loop. */
	private static Duration retryAfter(long micros) {
		return Duration.ofNanos(Math.max(1_000, micros) * 1_000);
	}

	private static long micros(ResultSet rs, String column) throws SQLException {
		OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
		return Micros.sinceEpoch(time.toInstant());
	}

	private static @Nullable Object array(ResultSet rs, String column) throws SQLException {
		Array array = rs.getArray(column);
		return (array != null) ? array.getArray() : null;
	}

	/** The claim's transaction runs in another isolation than READ COMMITTED: the database's default. */
	private static final class OtherIsolationException extends RuntimeException {

		OtherIsolationException() {
			super(null, null, false, false);
		}

	}

	/**
	 * What the locked row and the task table say.
	 * @param readCommitted whether the transaction runs in READ COMMITTED, which the counts rely on
	 * @param starts the claims in the current window, {@code null} when the row's window is later than it
	 * @param nowMicros the transaction's {@code now()}, the {@code claimed_at} of its claim
	 * @param clockMicros the database's clock when the state was read
	 * @param log the recent claims of a sliding rate limit
	 */
	private record State(boolean readCommitted, long running, @Nullable Integer starts, long windowMicros,
			Duration nextWindow, long nowMicros, long clockMicros, RateLog log) {
	}

}
