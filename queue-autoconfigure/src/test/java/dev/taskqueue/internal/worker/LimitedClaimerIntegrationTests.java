package dev.taskqueue.internal.worker;

import dev.taskqueue.RetryPolicy;
import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.QueueLimits.RateWindow;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue held back by a limit does not ask the database again until it may get something: the next rate window
 * (as the database tells it), a task of its own settling, or the poll interval. The claim loop sleeps until then.
 */
class LimitedClaimerIntegrationTests {

	private static final RetryPolicy RETRY = RetryPolicy.exponentialBackoff(Duration.ofSeconds(1), 2, Duration.ofMinutes(1), 0);

	private static final Duration POLL = Duration.ofSeconds(30);

	private static TaskRepository tasks;

	private static JdbcTemplate jdbc;

	private static SessionRepository sessions;

	private final UUID session = UUID.randomUUID();

	@BeforeAll
	static void migrate() {
		DataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		tasks = new TaskRepository(dataSource, tables);
		sessions = new SessionRepository(dataSource, tables);
		jdbc = new JdbcTemplate(dataSource);
	}

	@BeforeEach
	void fiveReadyTasks() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session, taskqueue_queue");
		sessions.register(this.session, "test");
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) "
				+ "SELECT gen_random_uuid(), 'q', '0' FROM generate_series(1, 5)");
	}

	@Test
	void aQueueHeldByItsRateWaitsForTheNextWindowAndSleepsUntilThen() {
		QueueState queue = queue(new QueueLimits(0, 2, Duration.ofSeconds(2), RateWindow.FIXED));
		LimitedClaimer claimer = new LimitedClaimer(tasks.limitedClaims(), POLL);
		// Claimed early in a window (they are aligned on the epoch), so that the window is still on when asked below:
		// a claim at its very end would see the next one begin before the question, more likely on a loaded machine.
		Await.until("the database clock in the first half of a window", Duration.ofSeconds(20),
				() -> jdbc.queryForObject("SELECT extract(epoch FROM clock_timestamp())::numeric % 2 < 1",
						Boolean.class));
		assertThat(claimer.claim(queue, 0, this.session, 4)).hasSize(2);
		long now = System.nanoTime();
		assertThat(claimer.mayClaim(queue, now)).isFalse();
		Duration sleep = claimer.sleep(now);
		assertThat(sleep).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
		assertThat(claimer.mayClaim(queue, now + sleep.toNanos())).isTrue();
		Await.until("the next window", Duration.ofSeconds(5), () -> claimer.mayClaim(queue, System.nanoTime()));
		assertThat(claimer.claim(queue, 0, this.session, 4)).as("the next window's starts").hasSize(2);
	}

	@Test
	void aQueueHeldForASlotWaitsForOneOfItsTasksToSettleOrThePollInterval() {
		QueueState queue = queue(new QueueLimits(1, 0, null, RateWindow.SLIDING));
		LimitedClaimer claimer = new LimitedClaimer(tasks.limitedClaims(), POLL);
		assertThat(claimer.claim(queue, 0, this.session, 4)).hasSize(1);
		queue.inFlight.incrementAndGet(); // handed to the handler threads
		long now = System.nanoTime();
		assertThat(claimer.mayClaim(queue, now)).isFalse();
		assertThat(claimer.sleep(now)).as("a poll interval after the claim")
			.isBetween(POLL.minusSeconds(1), POLL);
		assertThat(claimer.mayClaim(queue, now + POLL.toNanos())).as("a slot freed elsewhere").isTrue();
		queue.inFlight.decrementAndGet(); // settled here
		assertThat(claimer.mayClaim(queue, now)).isTrue();
	}

	@Test
	void aQueueNotHeldSleepsThePollInterval() {
		QueueState queue = queue(new QueueLimits(10, 0, null, RateWindow.SLIDING));
		LimitedClaimer claimer = new LimitedClaimer(tasks.limitedClaims(), POLL);
		assertThat(claimer.claim(queue, 0, this.session, 4)).hasSize(4);
		assertThat(claimer.mayClaim(queue, System.nanoTime())).isTrue();
		assertThat(claimer.sleep(System.nanoTime())).isEqualTo(POLL);
	}

	private static QueueState queue(QueueLimits limits) {
		try {
			TaskHandlerMethod handler = new TaskHandlerMethod("q", "bean", new Object(),
					Object.class.getMethod("toString"), String.class, false, 0, 0, false);
			return TestQueues.queue(handler,
					new QueueSettings(4, 5, RETRY, Duration.ofMinutes(1), 1, Duration.ZERO, limits), 0);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
