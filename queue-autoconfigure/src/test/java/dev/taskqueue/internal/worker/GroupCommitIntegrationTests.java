package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.PropertyFailures;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Group commit: several tasks share one transaction, each in a savepoint. A failing task rolls back alone, a group
 * whose commit fails runs its tasks again one by one, and a hung handler gives its group up without holding the
 * others' locks.
 */
class GroupCommitIntegrationTests {

	static volatile boolean releaseHungHandlers;

	static final List<String> afterCommits = new CopyOnWriteArrayList<>();

	@AfterAll
	static void releaseHungThreads() {
		releaseHungHandlers = true;
	}

	@Test
	void tasksCommitInGroupsAndAFailingTaskRollsBackOnlyItsOwnWork() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.queues.work.group-commit-size=20",
				"taskqueue.queues.work.concurrency=2", "taskqueue.worker.group-commit-max-delay=1s")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			List<TaskRequest> requests = work(1000, (n) -> (n % 7 == 0) ? "fails-once" : "ok");
			context.getBean(TaskQueue.class).enqueueAll(requests);

			awaitEmpty(jdbc);
			assertThat(count(jdbc, "SELECT count(*) FROM business")).isEqualTo(1000);
			assertThat(count(jdbc, "SELECT count(DISTINCT n) FROM business")).isEqualTo(1000);
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE n % 7 = 0 AND attempt = 2"))
				.as("a task that failed left nothing of its first attempt").isEqualTo(143);
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE n % 7 <> 0 AND attempt = 1")).isEqualTo(857);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			int transactions = count(jdbc, "SELECT count(DISTINCT xid) FROM business");
			assertThat(transactions).as("tasks shared transactions").isLessThan(500);
			assertThat(count(jdbc, "SELECT max(c) FROM (SELECT count(*) AS c FROM business GROUP BY xid) g"))
				.as("no group is larger than its size").isBetween(2, 20);
		}
	}

	@Test
	void afterCommitCallbacksOfAFailedTaskDoNotRunWhenItsGroupCommits() {
		try (ConfigurableApplicationContext context = oneThreadInGroupsOfTen()) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			List<TaskRequest> requests = work(20, (n) -> (n % 2 == 0) ? "publishes" : "publishes-fails-once");
			context.getBean(TaskQueue.class).enqueueAll(requests);

			awaitEmpty(jdbc);
			List<String> expected = new ArrayList<>();
			for (int n = 0; n < 20; n++) {
				expected.add(n + " attempt " + ((n % 2 == 0) ? 1 : 2));
			}
			// After-commit callbacks run just after the commit that empties the table: wait for the last ones.
			Await.until("every committed task's callback ran", Duration.ofSeconds(10),
					() -> afterCommits.size() >= expected.size());
			assertThat(afterCommits).containsExactlyInAnyOrderElementsOf(expected);
		}
	}

	@Test
	void aRollbackOnlyTaskFailsAloneAndItsGroupCommits() {
		try (ConfigurableApplicationContext context = oneThreadInGroupsOfTen("taskqueue.queues.work.max-attempts=1")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			List<TaskRequest> requests = work(10, (n) -> (n == 4) ? "rollback-only" : "ok");
			context.getBean(TaskQueue.class).enqueueAll(requests);

			awaitEmpty(jdbc);
			assertThat(jdbc.queryForList("SELECT n FROM business ORDER BY n", Integer.class))
				.containsExactly(0, 1, 2, 3, 5, 6, 7, 8, 9);
			assertThat(jdbc.queryForObject("SELECT error FROM taskqueue_dead_task", String.class))
				.startsWith("org.springframework.transaction.UnexpectedRollbackException: Transaction rolled back "
						+ "because it has been marked as rollback-only");
			assertThat(count(jdbc, "SELECT count(DISTINCT xid) FROM business")).isOne();
		}
	}

	@Test
	void aHandlerThatSwallowsAFailedStatementFailsAloneAndItsGroupCommits() {
		try (ConfigurableApplicationContext context = oneThreadInGroupsOfTen("taskqueue.queues.work.max-attempts=1")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			List<TaskRequest> requests = work(10, (n) -> (n == 4) ? "swallows-sql-error" : "ok");
			context.getBean(TaskQueue.class).enqueueAll(requests);

			awaitEmpty(jdbc);
			assertThat(jdbc.queryForList("SELECT n FROM business ORDER BY n", Integer.class))
				.containsExactly(0, 1, 2, 3, 5, 6, 7, 8, 9);
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE attempt = 1")).isEqualTo(9);
			assertThat(count(jdbc, "SELECT count(DISTINCT xid) FROM business")).isOne();
			assertThat(jdbc.queryForObject("SELECT error FROM taskqueue_dead_task", String.class))
				.startsWith("org.springframework.transaction.UnexpectedRollbackException: Transaction rolled back "
						+ "because a statement of the handler failed and the handler went on");
		}
	}

	@Test
	void aGroupThatCannotCommitRunsItsTasksAgainOneByOne() {
		try (ConfigurableApplicationContext context = oneThreadInGroupsOfTen("taskqueue.queues.work.max-attempts=2")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			List<TaskRequest> requests = work(10, (n) -> (n == 3) ? "breaks-commit" : "ok");
			// Sent to the dead letters unread: that must stick although its group rolls back.
			requests.add(2, TaskRequest.of("work", Map.of("n", "not a number", "kind", "ok")));
			List<UUID> ids = context.getBean(TaskQueue.class).enqueueAll(requests);

			awaitEmpty(jdbc);
			assertThat(jdbc.queryForList("SELECT n FROM business ORDER BY n", Integer.class))
				.containsExactly(0, 1, 2, 4, 5, 6, 7, 8, 9);
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE attempt = 1"))
				.as("the group's other tasks ran again without using up an attempt").isEqualTo(9);
			Map<String, Object> dead = jdbc.queryForMap("SELECT attempts, error FROM taskqueue_dead_task WHERE id = ?",
					ids.get(4));
			assertThat(dead.get("attempts")).isEqualTo(2);
			assertThat((String) dead.get("error")).contains("no_duplicate_k");
			assertThat(jdbc.queryForObject("SELECT error FROM taskqueue_dead_task WHERE id = ?", String.class,
					ids.get(2)))
				.startsWith("java.lang.IllegalArgumentException: Payload cannot be read as");
		}
	}

	@Test
	void aHungHandlerGivesItsGroupUpAndTheGroupsOtherTasksRunAgain() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.queues.work.group-commit-size=10",
				"taskqueue.queues.work.concurrency=1", "taskqueue.queues.work.max-attempts=1",
				"taskqueue.queues.work.timeout=1s", "taskqueue.worker.group-commit-max-delay=30s")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			List<TaskRequest> requests = work(6, (n) -> (n == 3) ? "hangs" : "ok");
			List<UUID> ids = context.getBean(TaskQueue.class).enqueueAll(requests);

			Await.until("the hung task is dead and the others done", Duration.ofSeconds(20),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(jdbc.queryForList("SELECT n FROM business ORDER BY n", Integer.class))
				.as("each task's work committed once: the given-up group's was rolled back")
				.containsExactly(0, 1, 2, 4, 5);
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE attempt = 1")).isEqualTo(5);
			Map<String, Object> dead = jdbc.queryForMap("SELECT id, error FROM taskqueue_dead_task");
			assertThat(dead.get("id")).isEqualTo(ids.get(3));
			assertThat((String) dead.get("error")).startsWith(
					"dev.taskqueue.HandlerTimeoutException: The handler did not finish within PT1S");
			// Tasks 0-2 ran again: their rows, deleted by the given-up group, were locked until its backend ended.
		}
	}

	@Test
	void aGroupWhoseClaimsWereLostRollsBackAndAnotherInstanceRunsItsTasksOnce() throws Exception {
		String url = TestDatabase.createDatabase();
		String[] settings = { "taskqueue.queues.work.group-commit-size=10", "taskqueue.queues.work.concurrency=1",
				"taskqueue.worker.group-commit-max-delay=30s", "taskqueue.worker.heartbeat-interval=20s",
				"taskqueue.worker.session-timeout=60s" };
		try (ConfigurableApplicationContext first = TestApplications.start(url, List.of(Config.class), settings)) {
			JdbcTemplate jdbc = first.getBean(JdbcTemplate.class);
			List<TaskRequest> requests = work(3, (n) -> (n == 2) ? "expires-its-session" : "ok");
			first.getBean(TaskQueue.class).enqueueAll(requests);
			Await.until("the group's session has expired", Duration.ofSeconds(20),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_session") == 0);
			first.stop(); // waits for the group to settle
			assertThat(jdbc.queryForList("SELECT n || ' attempt ' || attempt FROM business", String.class))
				.as("the group's work was rolled back").isEmpty();
			try (ConfigurableApplicationContext second = TestApplications.start(url, List.of(Config.class),
					settings)) {
				awaitEmpty(jdbc);
				assertThat(jdbc.queryForList("SELECT n FROM business ORDER BY n", Integer.class))
					.containsExactly(0, 1, 2);
				assertThat(count(jdbc, "SELECT count(*) FROM business WHERE attempt = 2")).isEqualTo(3);
			}
		}
	}

	@Test
	void groupCommitNeedsATransactionManagerWithJdbcSavepoints() {
		assertThatException()
			.isThrownBy(() -> TestApplications.start(TestDatabase.createDatabase(),
					List.of(Config.class, OtherTransactionManagerConfig.class),
					"taskqueue.worker.group-commit-size=5"))
			.satisfies((ex) -> assertThat(rootCause(ex)).isInstanceOf(IllegalStateException.class)
				.hasMessageStartingWith("Queue 'work' is set to commit groups of 5 tasks "
						+ "(taskqueue.worker.group-commit-size), each task in a savepoint, which needs a "
						+ "DataSourceTransactionManager or JdbcTransactionManager; the application's is a "
						+ OtherTransactionManager.class.getName()));
	}

	@Test
	void groupSizeIsBounded() {
		assertThatException()
			.isThrownBy(() -> TestApplications.start(TestDatabase.createDatabase(), List.of(Config.class),
					"taskqueue.queues.work.group-commit-size=40"))
			.satisfies((ex) -> PropertyFailures.assertRefused(ex, "taskqueue.queues.work.group-commit-size",
					"must be between 1 and 32 (PostgreSQL caches 64 subtransactions per transaction)"));
	}

	/** An instance whose queue 'work' runs on one thread in groups of up to 10, with {@code properties} on top. */
	private static ConfigurableApplicationContext oneThreadInGroupsOfTen(String... properties) {
		List<String> all = new ArrayList<>(List.of("taskqueue.queues.work.group-commit-size=10",
				"taskqueue.queues.work.concurrency=1", "taskqueue.worker.group-commit-max-delay=1s"));
		all.addAll(List.of(properties));
		return TestApplications.start(TestDatabase.createDatabase(), List.of(Config.class),
				all.toArray(String[]::new));
	}

	/** Tasks 0 to {@code count - 1} for queue 'work', of the kind {@code kind} gives each. */
	private static List<TaskRequest> work(int count, IntFunction<String> kind) {
		List<TaskRequest> requests = new ArrayList<>();
		for (int n = 0; n < count; n++) {
			requests.add(TaskRequest.of("work", new Work(n, kind.apply(n))));
		}
		return requests;
	}

	private static Throwable rootCause(Throwable ex) {
		Throwable cause = ex;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static void awaitEmpty(JdbcTemplate jdbc) {
		Await.until("every task is done or dead", Duration.ofSeconds(60),
				() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
	}

	private static int count(JdbcTemplate jdbc, String sql) {
		return jdbc.queryForObject(sql, Integer.class);
	}

	record Work(int n, String kind) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		WorkHandler workHandler(JdbcTemplate jdbc, PlatformTransactionManager transactionManager) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS business (n int NOT NULL, attempt int NOT NULL, xid text NOT NULL)");
			jdbc.execute("CREATE TABLE IF NOT EXISTS deferred_unique (k int CONSTRAINT no_duplicate_k UNIQUE "
					+ "DEFERRABLE INITIALLY DEFERRED)");
			jdbc.execute("INSERT INTO deferred_unique SELECT 0 WHERE NOT EXISTS (SELECT FROM deferred_unique)");
			return new WorkHandler(jdbc, new TransactionTemplate(transactionManager));
		}

	}

	static class WorkHandler {

		private final JdbcTemplate jdbc;

		private final TransactionTemplate transactions;

		WorkHandler(JdbcTemplate jdbc, TransactionTemplate transactions) {
			this.jdbc = jdbc;
			this.transactions = transactions;
		}

		@TaskHandler(queue = "work")
		void handle(Work work, TaskContext context) {
			this.jdbc.update("INSERT INTO business VALUES (?, ?, pg_current_xact_id()::text)", work.n(),
					context.attempt());
			switch (work.kind()) {
				case "ok" -> {
				}
				case "fails-once" -> {
					if (context.attempt() == 1) {
						throw new IllegalStateException("fails on its first attempt");
					}
				}
				// A participating transaction marked rollback-only marks the whole transaction so.
				case "rollback-only" -> this.transactions.executeWithoutResult(TransactionStatus::setRollbackOnly);
				case "expires-its-session" -> {
					if (context.attempt() == 1) { // as another instance would, on its own connection
						CompletableFuture.runAsync(() -> {
							// What expiring the session does: its tasks become ready, and it can claim no more.
							this.jdbc.update("UPDATE taskqueue_task SET claimed_by = NULL WHERE claimed_by IS NOT NULL");
							this.jdbc.update("DELETE FROM taskqueue_session");
						}).join();
					}
				}
				case "publishes", "publishes-fails-once" -> {
					TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
						@Override
						public void afterCommit() {
							afterCommits.add(work.n() + " attempt " + context.attempt());
						}
					});
					if (work.kind().equals("publishes-fails-once") && context.attempt() == 1) {
						throw new IllegalStateException("fails after registering its callback");
					}
				}
				case "swallows-sql-error" -> {
					try {
						this.jdbc.update("INSERT INTO no_such_table VALUES (1)");
					}
					catch (DataAccessException ex) {
						// carries on, although its transaction is now unusable
					}
				}
				case "breaks-commit" -> this.jdbc.update("INSERT INTO deferred_unique VALUES (0)");
				case "hangs" -> {
					while (!releaseHungHandlers) {
						try {
							Thread.sleep(100);
						}
						catch (InterruptedException ex) {
							// a hung handler ignores interrupts
						}
					}
				}
				default -> throw new IllegalArgumentException(work.kind());
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OtherTransactionManagerConfig {

		@Bean
		OtherTransactionManager transactionManager() {
			return new OtherTransactionManager();
		}

	}

	static class OtherTransactionManager implements PlatformTransactionManager {

		@Override
		public TransactionStatus getTransaction(TransactionDefinition definition) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void commit(TransactionStatus status) {
			throw new UnsupportedOperationException();
		}

		@Override
		public void rollback(TransactionStatus status) {
			throw new UnsupportedOperationException();
		}

	}

}
