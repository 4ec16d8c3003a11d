package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.QueueLimits.RateWindow;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.worker.LimitedClaim.Hold;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claims of limited queues against a real PostgreSQL: exact counts of what each limit lets through, the rate
 * window's bookkeeping, and the fresh snapshot after the lock wait.
 */
class LimitedClaimsIntegrationTests {

	private static final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	private static DataSource dataSource;

	private static LimitedClaims claims;

	private static JdbcTemplate jdbc;

	private final UUID session = UUID.randomUUID();

	@BeforeAll
	static void migrate() {
		dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		claims = new TaskRepository(dataSource, tables).limitedClaims();
		jdbc = new JdbcTemplate(dataSource);
	}

	@AfterAll
	static void stopThread() {
		otherThread.shutdownNow();
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session, taskqueue_queue");
		new SessionRepository(dataSource, TaskTables.inSchema(null)).register(this.session, "test");
	}

	@Test
	void globalConcurrencyClaimsOnlyTheFreeSlotsAndASettledTaskFreesOne() {
		insertReady("q", 5);
		QueueLimits limits = new QueueLimits(2, 0, null, RateWindow.SLIDING);
		LimitedClaim first = claims.claim("q", this.session, 4, limits);
		assertThat(first.claimed()).hasSize(2);
		assertThat(first.heldBy()).isEqualTo(Hold.SLOT);
		LimitedClaim none = claims.claim("q", this.session, 4, limits);
		assertThat(none.claimed()).isEmpty();
		assertThat(none.heldBy()).isEqualTo(Hold.SLOT);
		assertThat(jdbc.queryForObject("SELECT attempt FROM taskqueue_task WHERE claimed_by IS NULL LIMIT 1",
				Integer.class)).as("held back, not counted as an attempt").isZero();
		jdbc.update("DELETE FROM taskqueue_task WHERE id = ?", first.claimed().get(0).id());
		assertThat(claims.claim("q", this.session, 4, limits).claimed()).hasSize(1);
		assertThat(claims.claim("other", this.session, 4, limits).heldBy()).as("another queue has its own slots")
			.isEqualTo(Hold.NONE);
	}

	@Test
	void tasksHeldBehindTheirOrderingKeyHoldNoSlot() {
		insertReady("q", 1);
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, ordering_key, ordering_seq, claimed_by) "
				+ "SELECT gen_random_uuid(), 'q', '{}', 'k', g, uuid '00000000-0000-0000-0000-000000000000' "
				+ "FROM generate_series(1, 3) g");
		assertThat(claims.claim("q", this.session, 5, new QueueLimits(1, 0, null, RateWindow.SLIDING)).claimed()).hasSize(1);
	}

	@Test
	void aRetryWaitingHoldsNoSlot() {
		insertReady("q", 3);
		QueueLimits limits = new QueueLimits(1, 0, null, RateWindow.SLIDING);
		ClaimedTask task = claims.claim("q", this.session, 1, limits).claimed().get(0);
		jdbc.update("UPDATE taskqueue_task SET claimed_by = NULL, run_at = now() + interval '1 hour' WHERE id = ?",
				task.id());
		assertThat(claims.claim("q", this.session, 5, limits).claimed()).hasSize(1);
	}

	@Test
	void rateLimitCountsTheWindowsStartsAndSaysWhenTheNextBegins() {
		insertReady("q", 10);
		QueueLimits limits = new QueueLimits(0, 3, Duration.ofHours(1), RateWindow.FIXED);
		LimitedClaim first = claims.claim("q", this.session, 2, limits);
		assertThat(first.claimed()).hasSize(2);
		assertThat(first.heldBy()).isEqualTo(Hold.NONE);
		LimitedClaim second = claims.claim("q", this.session, 5, limits);
		assertThat(second.claimed()).hasSize(1);
		assertThat(second.heldBy()).isEqualTo(Hold.RATE);
		assertThat(second.retryIn()).isPositive().isLessThanOrEqualTo(Duration.ofHours(1));
		assertThat(claims.claim("q", this.session, 5, limits).claimed()).isEmpty();
		assertThat(claims.startsInWindow("q", limits)).isEqualTo(3);
		assertThat(jdbc.queryForObject("SELECT window_start = to_timestamp(floor(extract(epoch FROM now()) / 3600) "
				+ "* 3600) FROM taskqueue_queue WHERE name = 'q'", Boolean.class))
			.as("the window is aligned on the database clock")
			.isTrue();
		jdbc.update("UPDATE taskqueue_queue SET window_start = window_start - interval '1 hour'");
		assertThat(claims.startsInWindow("q", limits)).as("an older window counts nothing").isZero();
		assertThat(claims.claim("q", this.session, 5, limits).claimed()).as("a new window").hasSize(3);
	}

	@Test
	void aWindowLaterThanTheClaimsOwnClaimsNothing() {
		insertReady("q", 3);
		jdbc.update("INSERT INTO taskqueue_queue (name, window_start, window_starts) "
				+ "VALUES ('q', now() + interval '2 hours', 0)");
		LimitedClaim stale = claims.claim("q", this.session, 3, new QueueLimits(0, 5, Duration.ofHours(1), RateWindow.FIXED));
		assertThat(stale.claimed()).isEmpty();
		assertThat(stale.heldBy()).isEqualTo(Hold.RATE);
		assertThat(stale.retryIn()).isEqualTo(Duration.ofMillis(10));
	}

	@Test
	void slidingRateLimitCountsTheLastPeriodsStartsAndSaysWhenTheOldestLeavesIt() {
		insertReady("q", 10);
		QueueLimits limits = new QueueLimits(0, 3, Duration.ofHours(1), RateWindow.SLIDING);
		LimitedClaim first = claims.claim("q", this.session, 2, limits);
		assertThat(first.claimed()).hasSize(2);
		assertThat(first.heldBy()).isEqualTo(Hold.NONE);
		assertThat(jdbc.queryForObject("SELECT (SELECT array_agg(DISTINCT claimed_at) FROM taskqueue_task "
				+ "WHERE claimed_at IS NOT NULL) = (SELECT array_agg(timestamptz 'epoch' + m * interval '1 microsecond') "
				+ "FROM taskqueue_queue, unnest(rate_log_micros) m)", Boolean.class))
			.as("the log holds the claim's claimed_at, to the microsecond")
			.isTrue();
		LimitedClaim second = claims.claim("q", this.session, 5, limits);
		assertThat(second.claimed()).hasSize(1);
		assertThat(second.heldBy()).isEqualTo(Hold.RATE);
		assertThat(second.retryIn()).as("the claims leave the last hour an hour after them")
			.isGreaterThan(Duration.ofMinutes(59))
			.isLessThanOrEqualTo(Duration.ofHours(1));
		assertThat(logStarts()).as("claims of one grain (36 s here) share a pair").containsExactly(3L);
		assertThat(claims.claim("q", this.session, 5, limits).claimed()).isEmpty();
		assertThat(claims.startsInWindow("q", limits)).isEqualTo(3);
		jdbc.update("UPDATE taskqueue_queue SET rate_log_micros = ARRAY[rate_log_micros[1] - 1860000000]");
		assertThat(claims.startsInWindow("q", limits)).as("31 minutes ago is within the last hour").isEqualTo(3);
		LimitedClaim held = claims.claim("q", this.session, 5, limits);
		assertThat(held.claimed()).isEmpty();
		assertThat(held.retryIn()).as("they leave the last hour in 29 minutes")
			.isGreaterThan(Duration.ofMinutes(28))
			.isLessThanOrEqualTo(Duration.ofMinutes(29));
		// Two claims now: 2 starts 61 minutes ago, out of the last hour, and 1 start 31 minutes ago. The fixed window
		// moves back an hour, so that it holds nothing back.
		jdbc.update("UPDATE taskqueue_queue SET rate_log_micros = ARRAY[rate_log_micros[1] - 1800000000, "
				+ "rate_log_micros[1]], rate_log_starts = ARRAY[2, 1], window_start = window_start - interval '1 hour'");
		assertThat(claims.startsInWindow("q", limits)).as("the older claim left the last hour").isEqualTo(1);
		LimitedClaim third = claims.claim("q", this.session, 5, limits);
		assertThat(third.claimed()).as("the limit less the start of 31 minutes ago").hasSize(2);
		assertThat(third.retryIn()).isGreaterThan(Duration.ofMinutes(28)).isLessThanOrEqualTo(Duration.ofMinutes(29));
		assertThat(logStarts()).as("pruned of the claim 61 minutes ago").containsExactly(1L, 2L);
	}

	private static List<Long> logStarts() {
		return jdbc.queryForList("SELECT unnest(rate_log_starts) FROM taskqueue_queue WHERE name = 'q'", Long.class);
	}

	@Test
	void slidingRateLimitHoldsTheStartsOfTheFixedWindowWhileInstancesOfBothShareTheQueue() {
		insertReady("q", 10);
		claims.claim("q", this.session, 2, new QueueLimits(0, 3, Duration.ofHours(1), RateWindow.FIXED));
		LimitedClaim sliding = claims.claim("q", this.session, 5,
				new QueueLimits(0, 3, Duration.ofHours(1), RateWindow.SLIDING));
		assertThat(sliding.claimed()).as("the fixed window's two starts count").hasSize(1);
		assertThat(claims.claim("q", this.session, 5, new QueueLimits(0, 3, Duration.ofHours(1), RateWindow.FIXED))
			.claimed()).as("and the sliding start counts in the fixed window").isEmpty();
	}

	@Test
	void aSlidingLogLaterThanTheClaimsOwnClaimsNothing() {
		insertReady("q", 3);
		// A minute ahead, not a second: the claim's now() must still be earlier on a loaded machine.
		jdbc.update("INSERT INTO taskqueue_queue (name, rate_log_micros, rate_log_starts) "
				+ "VALUES ('q', ARRAY[(extract(epoch FROM now() + interval '1 minute') * 1000000)::bigint], ARRAY[1])");
		LimitedClaim stale = claims.claim("q", this.session, 3,
				new QueueLimits(0, 5, Duration.ofHours(1), RateWindow.SLIDING));
		assertThat(stale.claimed()).isEmpty();
		assertThat(stale.heldBy()).isEqualTo(Hold.RATE);
		assertThat(stale.retryIn()).isEqualTo(Duration.ofMillis(10));
	}

	/**
	 * Another instance's claim holds the lock and claims both slots; the claim waiting for the lock must count them
	 * once it commits. Counting on the snapshot taken before the wait would see no task claimed and take two more.
	 */
	@Test
	void aClaimThatWaitedForTheLockCountsWhatTheHolderClaimed() throws Exception {
		claimAfterTheLockHolder(claims);
	}

	/** The same in a database whose default isolation would count on the snapshot taken before the wait. */
	@Test
	void aClaimThatWaitedForTheLockCountsWhatTheHolderClaimedWhateverTheDefaultIsolation() throws Exception {
		String database = jdbc.queryForObject("SELECT current_database()", String.class);
		jdbc.execute("ALTER DATABASE " + database + " SET default_transaction_isolation = 'repeatable read'");
		try {
			assertThat(jdbc.queryForObject("SHOW transaction_isolation", String.class)).isEqualTo("repeatable read");
			claimAfterTheLockHolder(new TaskRepository(dataSource, TaskTables.inSchema(null)).limitedClaims());
		}
		finally {
			jdbc.execute("ALTER DATABASE " + database + " RESET default_transaction_isolation");
		}
	}

	/**
	 * Under SERIALIZABLE (CockroachDB's default) the claim stays at that level: the database fails the claim whose
	 * snapshot missed the holder's claims (SQLSTATE 40001), and the claim runs again and counts them.
	 */
	@Test
	void underSerializableAClaimThatWaitedForTheLockIsRetriedAndCountsWhatTheHolderClaimed() throws Exception {
		String database = jdbc.queryForObject("SELECT current_database()", String.class);
		jdbc.execute("ALTER DATABASE " + database + " SET default_transaction_isolation = 'serializable'");
		try {
			SerializationRetry retry = new SerializationRetry(10, Duration.ofMillis(1), Duration.ofMillis(10));
			List<String> retried = new java.util.concurrent.CopyOnWriteArrayList<>();
			retry.onRetry(retried::add);
			claimAfterTheLockHolder(new TaskRepository(dataSource, TaskTables.inSchema(null), false,
					DatabaseDialect.of(Database.COCKROACHDB, false), retry).limitedClaims());
			assertThat(retried).as("the claim failed with 40001 and ran again").isNotEmpty()
				.containsOnly("limited-claim");
		}
		finally {
			jdbc.execute("ALTER DATABASE " + database + " RESET default_transaction_isolation");
		}
	}

	private void claimAfterTheLockHolder(LimitedClaims claims) throws Exception {
		insertReady("q", 4);
		claims.claim("q", this.session, 1, new QueueLimits(2, 0, null, RateWindow.SLIDING)); // the row exists
		jdbc.update("UPDATE taskqueue_task SET claimed_by = NULL, attempt = 0");
		try (Connection other = dataSource.getConnection()) {
			other.setAutoCommit(false);
			try (Statement statement = other.createStatement()) {
				statement.execute("SELECT 1 FROM taskqueue_queue WHERE name = 'q' FOR UPDATE");
				statement.executeUpdate("UPDATE taskqueue_task SET claimed_by = '" + this.session + "' WHERE id IN "
						+ "(SELECT id FROM taskqueue_task ORDER BY id LIMIT 2)");
			}
			Future<LimitedClaim> waiting = otherThread
				.submit(() -> claims.claim("q", this.session, 4, new QueueLimits(2, 0, null, RateWindow.SLIDING)));
			Await.until("the claim waits for the lock", Duration.ofSeconds(10), () -> jdbc.queryForObject(
					"SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'",
					Integer.class) == 1);
			other.commit();
			LimitedClaim claim = waiting.get(10, TimeUnit.SECONDS);
			assertThat(claim.claimed()).isEmpty();
			assertThat(claim.heldBy()).isEqualTo(Hold.SLOT);
		}
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NOT NULL",
				Integer.class)).isEqualTo(2);
	}

	private static List<UUID> insertReady(String queue, int count) {
		return jdbc.queryForList("INSERT INTO taskqueue_task (id, queue, payload, run_at) "
				+ "SELECT gen_random_uuid(), ?, '0', now() - interval '1 minute' FROM generate_series(1, ?) "
				+ "RETURNING id", UUID.class, queue, count);
	}

}
