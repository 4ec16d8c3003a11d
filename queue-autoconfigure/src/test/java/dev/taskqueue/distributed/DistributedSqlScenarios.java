package dev.taskqueue.distributed;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.distributed.ScenarioHandlers.BusinessHandler;
import dev.taskqueue.distributed.ScenarioHandlers.Handlers;
import dev.taskqueue.distributed.ScenarioHandlers.SessionExpiry;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core scenarios of the queue, run by each distributed SQL database's test class against a container of that
 * database: the auto-configured starter with its defaults ({@code taskqueue.database} left to detect the
 * database), public API and properties only, exact counts. Each test gets a database of its own.
 */
abstract class DistributedSqlScenarios {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final int TASKS = 2_000;

	/** Creates an empty database for one test and returns its JDBC URL, for the PostgreSQL driver. */
	protected abstract String createDatabase();

	/** The user to connect as, or {@code null} when the URL names it. */
	protected abstract @Nullable String username();

	protected abstract @Nullable String password();

	@Test
	void enqueuedTasksAreEachHandledOnceAndDeleted() {
		try (ConfigurableApplicationContext instance = start(createDatabase(), Handlers.class)) {
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				requests.add(TaskRequest.of("echo", "task " + i));
			}
			List<UUID> ids = instance.getBean(TaskQueue.class).enqueueAll(requests);
			Handlers handlers = instance.getBean(Handlers.class);
			Await.until("the 50 tasks are handled", WAIT, () -> handlers.echoed.size() == 50);
			JdbcTemplate jdbc = instance.getBean(JdbcTemplate.class);
			Await.until("the task rows are gone", WAIT, () -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(handlers.echoed).containsOnlyKeys(ids);
			assertThat(handlers.echoed.values()).allSatisfy((calls) -> assertThat(calls.get()).isEqualTo(1));
			assertThat(handlers.echoed.get(ids.get(7)).payload()).isEqualTo("task 7");
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
		}
	}

	@Test
	void failedTaskIsRetriedUntilItSucceeds() {
		try (ConfigurableApplicationContext instance = start(createDatabase(), Handlers.class)) {
			UUID id = instance.getBean(TaskQueue.class).enqueue("flaky", "fails twice");
			Handlers handlers = instance.getBean(Handlers.class);
			Await.until("the third attempt succeeds", WAIT, () -> handlers.flakySucceeded.contains(id));
			JdbcTemplate jdbc = instance.getBean(JdbcTemplate.class);
			Await.until("the task row is gone", WAIT, () -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(handlers.flakyAttempts).containsExactly(1, 2, 3);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
		}
	}

	@Test
	void taskFailingEveryAttemptEndsInTheDeadLettersWithItsError() {
		try (ConfigurableApplicationContext instance = start(createDatabase(), Handlers.class,
				"taskqueue.queues.always-fails.max-attempts=3")) {
			UUID id = instance.getBean(TaskQueue.class).enqueue("always-fails", "doomed");
			JdbcTemplate jdbc = instance.getBean(JdbcTemplate.class);
			Await.until("the task is dead", WAIT, () -> count(jdbc, "SELECT count(*) FROM taskqueue_dead_task") == 1);
			Map<String, Object> dead = jdbc.queryForMap("SELECT * FROM taskqueue_dead_task WHERE id = ?", id);
			assertThat(((Number) dead.get("attempts")).intValue()).isEqualTo(3);
			assertThat((String) dead.get("error")).startsWith("java.lang.IllegalStateException: fails on attempt 3");
			assertThat(dead.get("payload").toString()).contains("doomed");
			assertThat(instance.getBean(Handlers.class).alwaysFailsAttempts.get()).isEqualTo(3);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_task")).isZero();
		}
	}

	@Test
	void threeInstancesHandleEveryTaskExactlyOnce() {
		String url = createDatabase();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				instances.add(start(url, BusinessHandler.class, "taskqueue.worker.concurrency=6",
						"spring.datasource.hikari.maximum-pool-size=10"));
			}
			JdbcTemplate jdbc = instances.get(0).getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE business (task_id uuid NOT NULL, instance text NOT NULL)");
			TaskQueue taskQueue = instances.get(0).getBean(TaskQueue.class);
			for (int batch = 0; batch < TASKS / 200; batch++) {
				List<TaskRequest> requests = new ArrayList<>();
				for (int i = 0; i < 200; i++) {
					requests.add(TaskRequest.of("business", Map.of("n", batch * 200 + i)));
				}
				taskQueue.enqueueAll(requests);
			}
			Await.until("all tasks are done", Duration.ofSeconds(300),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(count(jdbc, "SELECT count(*) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(DISTINCT task_id) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			assertThat(count(jdbc, "SELECT count(DISTINCT instance) FROM business")).as("every instance took part")
				.isEqualTo(3);
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Test
	void expiredSessionsTaskIsTakenOverAndItsHandlerRollsBack() throws Exception {
		String url = createDatabase();
		SessionExpiry.reset();
		// The first instance beats once in 10 minutes, so it neither refreshes its session nor opens a new one while
		// the test runs: only the test decides when that session goes stale, and the second instance expires it.
		try (ConfigurableApplicationContext slow = start(url, SessionExpiry.SlowHandler.class,
				"taskqueue.worker.heartbeat-interval=10m", "taskqueue.worker.session-timeout=30m")) {
			JdbcTemplate jdbc = slow.getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE business (task_id uuid NOT NULL, attempt int NOT NULL)");
			UUID id = slow.getBean(TaskQueue.class).enqueue("expiry", "payload");
			assertThat(SessionExpiry.slowStarted.await(60, TimeUnit.SECONDS)).isTrue();
			// As if the first instance had paused for an hour: its session is stale on the database clock.
			jdbc.update("UPDATE taskqueue_session SET heartbeat_at = now() - interval '1 hour'");
			try (ConfigurableApplicationContext fast = start(url, SessionExpiry.FastHandler.class,
					"taskqueue.worker.heartbeat-interval=200ms", "taskqueue.worker.session-timeout=60s")) {
				Await.until("the second instance expires the first and completes the task", WAIT,
						() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
				assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_session")).isEqualTo(1);
				SessionExpiry.releaseSlow.countDown();
				slow.close(); // waits for the slow handler to finish and its transaction to roll back
				JdbcTemplate fastJdbc = fast.getBean(JdbcTemplate.class);
				assertThat(fastJdbc.queryForList("SELECT attempt FROM business WHERE task_id = ?", Integer.class, id))
					.containsExactly(2);
				assertThat(SessionExpiry.slowAttempts).containsExactly(1);
				assertThat(SessionExpiry.fastAttempts).containsExactly(2);
				assertThat(count(fastJdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			}
		}
		finally {
			SessionExpiry.releaseSlow.countDown();
		}
	}

	private ConfigurableApplicationContext start(String url, Class<?> handlers, String... properties) {
		List<String> all = new ArrayList<>();
		if (username() != null) {
			all.add("spring.datasource.username=" + username());
			all.add("spring.datasource.password=" + ((password() != null) ? password() : ""));
		}
		all.addAll(List.of(properties));
		return TestApplications.start(url, List.of(handlers), all.toArray(String[]::new));
	}

	/**
	 * Creates a database named at random on the server of {@code adminUrl} and returns its name.
	 */
	protected static String createDatabase(String adminUrl, @Nullable String username, @Nullable String password) {
		String name = "taskqueue_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		try (Connection connection = DriverManager.getConnection(adminUrl, username, password);
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create database " + name + ": " + ex.getMessage(), ex);
		}
		return name;
	}

	private static int count(JdbcTemplate jdbc, String sql) {
		return jdbc.queryForObject(sql, Integer.class);
	}

}
