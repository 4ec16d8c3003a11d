package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.DeadTask;
import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.AttemptLog;
import dev.taskqueue.internal.jdbc.DeadTaskRepository;
import dev.taskqueue.internal.jdbc.QueueRepository;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The attempt log (V19, {@link AttemptLog}) as each failure path writes it, statement by statement, and the
 * statements of the success path that must not touch it.
 */
class AttemptLogStatementsIntegrationTests {

	private static TaskRepository tasks;

	private static SessionRepository sessions;

	private static QueueRepository queues;

	private static DeadTaskRepository dead;

	private static JdbcClient client;

	private static JdbcTemplate jdbc;

	private static TransactionTemplate transaction;

	private final UUID session = UUID.randomUUID();

	@BeforeAll
	static void migrate() {
		DataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		tasks = new TaskRepository(dataSource, tables, true);
		sessions = new SessionRepository(dataSource, tables);
		queues = new QueueRepository(dataSource, tables, true, null);
		dead = new DeadTaskRepository(dataSource, tables);
		jdbc = new JdbcTemplate(dataSource);
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		client = JdbcClient.create(dataSource);
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session, taskqueue_dead_task, taskqueue_history, "
				+ "taskqueue_cancel_request");
		sessions.register(this.session, "instance-a");
	}

	@Test
	void twelveFailuresKeepTheLastTenAttemptsAndTheDeadLetterShowsThem() {
		UUID id = insert();
		for (int attempt = 1; attempt <= 11; attempt++) {
			ClaimedTask task = claimOne();
			assertThat(task.attempt()).isEqualTo(attempt);
			assertThat(tasks.retryLater(task, Duration.ZERO, "java.lang.IllegalStateException: boom " + attempt
					+ "\n\tat somewhere", (attempt == 5) ? AttemptLog.TIMED_OUT : AttemptLog.FAILED)).isTrue();
			assertThat(logLength("taskqueue_task", id)).isEqualTo(Math.min(attempt, AttemptLog.SIZE));
		}
		assertThat(tasks.moveToDead(claimOne(), "java.lang.IllegalStateException: boom 12", 12)).isTrue();
		List<DeadTask.Attempt> log = dead.find(id).orElseThrow().attemptLog();
		assertThat(log).extracting(DeadTask.Attempt::attempt).containsExactly(3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
		assertThat(log).extracting(DeadTask.Attempt::outcome)
			.containsExactly("failed", "failed", "timed out", "failed", "failed", "failed", "failed", "failed",
					"failed", "dead");
		assertThat(log).extracting(DeadTask.Attempt::instance).containsOnly("instance-a");
		assertThat(log).allSatisfy((attempt) -> {
			assertThat(attempt.startedAt()).isNotNull().isBeforeOrEqualTo(attempt.endedAt());
			assertThat(attempt.error()).startsWith("java.lang.IllegalStateException: boom " + attempt.attempt());
		});
		assertThat(dead.attempts(id)).isEqualTo(log);
		assertThat(AttemptLog.read(client, "taskqueue_dead_task", id)).isEqualTo(log);
	}

	@Test
	void anAttemptKeepsOnlyTheStartOfItsError() {
		UUID id = insert();
		assertThat(tasks.retryLater(claimOne(), Duration.ZERO, "x".repeat(8_000))).isTrue();
		assertThat(dead.attempts(id)).singleElement()
			.satisfies((attempt) -> assertThat(attempt.error()).hasSize(AttemptLog.ERROR_LENGTH));
	}

	@Test
	void aClaimTakenBackFromAnInstanceThatStoppedBeatingIsLoggedAsLostWithThatInstance() {
		UUID id = insert();
		ClaimedTask task = claimOne();
		jdbc.update("UPDATE taskqueue_session SET heartbeat_at = now() - interval '1 hour' WHERE id = ?",
				this.session);
		assertThat(sessions.expire(Duration.ofMinutes(1))).isEqualTo(1);
		List<DeadTask.Attempt> log = AttemptLog.read(client, "taskqueue_task", id);
		assertThat(log).singleElement().satisfies((attempt) -> {
			assertThat(attempt.attempt()).isEqualTo(1);
			assertThat(attempt.outcome()).isEqualTo("lost");
			assertThat(attempt.instance()).isEqualTo("instance-a");
			assertThat(attempt.startedAt()).isEqualTo(task.claimedAt());
			assertThat(attempt.error()).isNull();
		});
	}

	@Test
	void aCompletionAfterFailuresCarriesTheLogIntoTheHistoryWithTheCompletedAttempt() {
		UUID id = insert();
		assertThat(tasks.retryLater(claimOne(), Duration.ZERO, "first")).isTrue();
		assertThat(tasks.retryLater(claimOne(), Duration.ZERO, "second")).isTrue();
		ClaimedTask last = claimOne();
		assertThat(complete(last)).isTrue();
		assertThat(dead.attempts(id)).extracting(DeadTask.Attempt::attempt, DeadTask.Attempt::outcome,
				DeadTask.Attempt::instance, DeadTask.Attempt::error)
			.containsExactly(tuple(1, "failed", "instance-a", "first"),
					tuple(2, "failed", "instance-a", "second"),
					tuple(3, "completed", "instance-a", null));
	}

	@Test
	void aTaskThatNeverFailedHasNoLogInTheHistory() {
		UUID one = insert();
		UUID many = insert();
		ClaimedTask first = claimOne();
		assertThat(complete(first)).isTrue();
		ClaimedTask next = claimOne();
		List<UUID> completed = transaction.execute((status) -> tasks.completeAll(this.session, List.of(next)));
		assertThat(completed).hasSize(1);
		assertThat(jdbc.queryForObject(
				"SELECT count(*) FROM taskqueue_history WHERE attempt_log IS NULL AND id IN (?, ?)", Integer.class, one,
				many)).isEqualTo(2);
	}

	@Test
	void theClaimsAndTheCompletionsWithoutHistoryDoNotTouchTheLog() {
		TaskClaims claims = new TaskClaims(null, TaskTables.inSchema(null), false);
		assertThat(List.of(claims.claim, claims.claimOthers, claims.claimAfter, claims.completeAndClaim,
				claims.completeAndClaimAfter)).noneMatch((sql) -> sql.contains("attempt_log"));
	}

	@Test
	void aRunningTaskCancelledIsKeptInTheHistoryWithItsCancelledAttempt() {
		UUID id = insert();
		assertThat(tasks.retryLater(claimOne(), Duration.ZERO, "first")).isTrue();
		claimOne();
		assertThat(queues.cancel(id, "ops")).isTrue();
		assertThat(dead.attempts(id)).extracting(DeadTask.Attempt::outcome).containsExactly("failed", "cancelled");
	}

	@Test
	void aDeadTaskRetriedTakesItsLogBackToItsQueue() {
		UUID id = insert();
		assertThat(tasks.moveToDead(claimOne(), "gone")).isTrue();
		assertThat(dead.retry(id)).isTrue();
		assertThat(tasks.retryLater(claimOne(), Duration.ZERO, "again")).isTrue();
		assertThat(dead.attempts(id)).extracting(DeadTask.Attempt::attempt, DeadTask.Attempt::outcome)
			.containsExactly(tuple(1, "dead"),
					tuple(1, "failed"));
	}

	private static UUID insert() {
		UUID id = UUID.randomUUID();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) VALUES (?, 'story', '{}')", id);
		return id;
	}

	private ClaimedTask claimOne() {
		List<ClaimedTask> claimed = transaction.execute((status) -> tasks.claim("story", 0, this.session, 1));
		assertThat(claimed).hasSize(1);
		return claimed.get(0);
	}

	private static boolean complete(ClaimedTask task) {
		Boolean completed = transaction.execute((status) -> tasks.complete(task));
		return Boolean.TRUE.equals(completed);
	}

	private static int logLength(String table, UUID id) {
		return jdbc.queryForObject("SELECT jsonb_array_length(attempt_log) FROM " + table + " WHERE id = ?",
				Integer.class, id);
	}

}
