package dev.taskqueue.dialect;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.UniqueMode;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.worker.SessionExpiry;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * TaskQueue on a PostgreSQL database restricted to what CockroachDB offers ({@link RestrictedPostgres}): no NOTIFY,
 * no advisory locks, no {@code pg_terminate_backend}, SERIALIZABLE transactions. Every kind of enqueue (each has
 * its own statement with a {@code pg_notify} when notifying), handling, retries, dead letters, session expiry and
 * group commit's give-up run there with exact counts.
 */
@ExtendWith(OutputCaptureExtension.class)
class RestrictedPostgresIntegrationTests {

	static volatile boolean releaseHung;

	static CountDownLatch slowStarted = new CountDownLatch(1);

	static CountDownLatch releaseSlow = new CountDownLatch(1);

	private final RestrictedPostgres database = new RestrictedPostgres();

	@AfterEach
	void dropRole() {
		this.database.close();
	}

	@AfterAll
	static void releaseHandlers() {
		releaseHung = true;
		releaseSlow.countDown();
	}

	@Test
	void theProfileForbidsWhatCockroachDbLacksAndRunsSerializable() {
		JdbcTemplate restricted = new JdbcTemplate(new DriverManagerDataSource(this.database.url()));
		for (String sql : List.of("SELECT pg_notify('taskqueue', 'work')", "SELECT pg_advisory_lock(1)",
				"SELECT pg_try_advisory_xact_lock(1)", "SELECT pg_terminate_backend(pg_backend_pid())")) {
			assertThatException().as(sql)
				.isThrownBy(() -> restricted.execute(sql))
				.havingRootCause()
				.withMessageContaining("permission denied for function");
		}
		assertThat(restricted.queryForObject("SHOW transaction_isolation", String.class)).isEqualTo("serializable");
	}

	@Test
	void everyEnqueueHandlingRetriesAndDeadLettersWithoutNotify(CapturedOutput output) {
		try (ConfigurableApplicationContext context = start(List.of(WorkConfig.class),
				"taskqueue.retry.max-attempts=2")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			operations.pause("work"); // so that the keyed enqueues below meet each other's tasks
			for (int i = 0; i < 20; i++) {
				taskQueue.enqueue("work", "plain");
			}
			taskQueue.enqueueAll(List.of(TaskRequest.of("work", "all"), TaskRequest.of("work", "all")));
			UUID kept = taskQueue.enqueue(TaskRequest.of("work", "keep").withUniqueKey("k"));
			assertThat(taskQueue.enqueue(TaskRequest.of("work", "keep").withUniqueKey("k"))).isEqualTo(kept);
			taskQueue.enqueue(TaskRequest.of("work", "replaced").withUniqueKey("r", UniqueMode.REPLACE));
			taskQueue.enqueue(TaskRequest.of("work", "replacing").withUniqueKey("r", UniqueMode.REPLACE));
			taskQueue.offerAll(List.of(TaskRequest.of("work", "offer").withUniqueKey("u1"),
					TaskRequest.of("work", "offer").withUniqueKey("u2"),
					TaskRequest.of("work", "offer").withUniqueKey("u1")));
			for (int i = 0; i < 3; i++) {
				taskQueue.enqueue(TaskRequest.of("work", "ordered").withOrderingKey("o"));
			}
			taskQueue.enqueueAll(List.of(TaskRequest.of("work", "ordered-all").withOrderingKey("o2"),
					TaskRequest.of("work", "ordered-all").withOrderingKey("o2")));
			taskQueue.enqueue("work", "fail");
			taskQueue.enqueue("work", "give up");
			taskQueue.publish("events", "event");
			taskQueue.enqueueBatch(List.of(TaskRequest.of("work", "batched"), TaskRequest.of("work", "batched"),
					TaskRequest.of("work", "batched")), TaskRequest.of("work", "then"));
			operations.resume("work");

			Await.until("every task is done or dead", Duration.ofSeconds(30),
					() -> this.database.count("SELECT count(*) FROM taskqueue_task") == 0
							&& this.database.count("SELECT count(*) FROM taskqueue_dead_task") == 2
							&& this.database.count("SELECT count(*) FROM business WHERE payload = 'then'") == 1);
		}
		JdbcTemplate jdbc = this.database.superuser();
		assertThat(jdbc.queryForList("SELECT payload || ' ' || count(*) FROM business GROUP BY payload "
				+ "ORDER BY payload", String.class))
			.containsExactly("all 2", "batched 3", "event 1", "keep 1", "offer 2", "ordered 3", "ordered-all 2",
					"plain 20", "replacing 1", "then 1");
		assertThat(this.database.count("SELECT count(DISTINCT task_id) FROM business")).isEqualTo(36);
		assertThat(jdbc.queryForList("SELECT (payload #>> '{}') || ' ' || attempts FROM taskqueue_dead_task ORDER BY 1",
				String.class))
			.containsExactly("fail 2", "give up 1");
		assertThat(output).doesNotContain("permission denied");
	}

	@Test
	void anExpiredSessionsTaskRunsOnceOnAnotherInstance() throws Exception {
		String[] settings = { "taskqueue.worker.heartbeat-interval=20s", "taskqueue.worker.session-timeout=60s" };
		try (ConfigurableApplicationContext slow = start(List.of(SlowConfig.class), settings)) {
			UUID id = slow.getBean(TaskQueue.class).enqueue("slow", "payload");
			assertThat(slowStarted.await(20, TimeUnit.SECONDS)).isTrue();
			this.database.superuser().update("UPDATE taskqueue_session SET heartbeat_at = now() - interval '1 hour'");
			assertThat(SessionExpiry.expire(slow.getBean(DataSource.class), slow.getBean(TaskTables.class),
					Duration.ofSeconds(60))).isEqualTo(1);
			try (ConfigurableApplicationContext fast = start(List.of(WorkConfig.class), settings)) {
				fast.getBean(TaskQueue.class).enqueue("work", "plain");
				Await.until("the second instance ran the task", Duration.ofSeconds(20),
						() -> this.database.count("SELECT count(*) FROM taskqueue_task") == 0);
				releaseSlow.countDown();
				slow.close(); // its handler returns and its transaction, fenced by the lost claim, rolls back
			}
			assertThat(this.database.superuser()
				.queryForList("SELECT payload || ' ' || attempt FROM business WHERE task_id = ?", String.class, id))
				.containsExactly("slow-on-fast 2");
			assertThat(this.database.count("SELECT count(*) FROM business")).isEqualTo(2);
			assertThat(this.database.count("SELECT count(*) FROM taskqueue_dead_task")).isZero();
		}
	}

	@Test
	void aHungHandlerGivesItsGroupUpByClosingItsConnection(CapturedOutput output) {
		try (ConfigurableApplicationContext context = start(List.of(GroupConfig.class),
				"taskqueue.queues.group.group-commit-size=10", "taskqueue.queues.group.concurrency=1",
				"taskqueue.queues.group.max-attempts=1", "taskqueue.queues.group.timeout=1s",
				"taskqueue.worker.group-commit-max-delay=30s")) {
			List<TaskRequest> requests = new ArrayList<>();
			for (int n = 0; n < 6; n++) {
				requests.add(TaskRequest.of("group", (n == 3) ? "hangs" : "ok " + n));
			}
			List<UUID> ids = context.getBean(TaskQueue.class).enqueueAll(requests);
			Await.until("the hung task is dead and the others done", Duration.ofSeconds(20),
					() -> this.database.count("SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(this.database.superuser()
				.queryForList("SELECT payload FROM business ORDER BY payload", String.class))
				.as("each task's work committed once: the given-up group's was rolled back")
				.containsExactly("ok 0", "ok 1", "ok 2", "ok 4", "ok 5");
			assertThat(this.database.superuser().queryForObject("SELECT id FROM taskqueue_dead_task", UUID.class))
				.isEqualTo(ids.get(3));
			assertThat(output).contains("the group's transaction was rolled back and its other tasks run again");
		}
		finally {
			releaseHung = true;
		}
	}

	private ConfigurableApplicationContext start(List<Class<?>> sources, String... properties) {
		JdbcTemplate jdbc = this.database.superuser();
		jdbc.execute("CREATE TABLE IF NOT EXISTS business (task_id uuid NOT NULL, payload text NOT NULL, "
				+ "attempt int NOT NULL)");
		jdbc.execute("GRANT ALL ON business TO PUBLIC");
		List<Class<?>> all = new ArrayList<>(sources);
		all.add(RestrictedPostgres.CockroachDialect.class);
		List<String> settings = new ArrayList<>(List.of("taskqueue.schema.migrate=false"));
		settings.addAll(List.of(properties));
		return TestApplications.start(this.database.url(), all, settings.toArray(String[]::new));
	}

	static void insert(JdbcTemplate jdbc, TaskContext context, String payload) {
		jdbc.update("INSERT INTO business (task_id, payload, attempt) VALUES (?, ?, ?)", context.id(), payload,
				context.attempt());
	}

	@Configuration(proxyBeanMethods = false)
	static class WorkConfig {

		@Bean
		WorkHandler workHandler(JdbcTemplate jdbc) {
			return new WorkHandler(jdbc);
		}

	}

	static class WorkHandler {

		private final JdbcTemplate jdbc;

		WorkHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "work")
		void work(String payload, TaskContext context) {
			switch (payload) {
				case "fail" -> throw new IllegalStateException("fails every time");
				case "give up" -> throw new NonRetryableTaskException("not worth retrying");
				default -> insert(this.jdbc, context, payload);
			}
		}

		@TaskHandler(queue = "subscriber", topics = "events")
		void event(String payload, TaskContext context) {
			insert(this.jdbc, context, payload);
		}

		@TaskHandler(queue = "slow")
		void slowOnFast(String payload, TaskContext context) {
			insert(this.jdbc, context, "slow-on-fast");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SlowConfig {

		@Bean
		SlowHandler slowHandler(JdbcTemplate jdbc) {
			return new SlowHandler(jdbc);
		}

	}

	static class SlowHandler {

		private final JdbcTemplate jdbc;

		SlowHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "slow")
		void slow(String payload, TaskContext context) throws InterruptedException {
			insert(this.jdbc, context, "slow");
			slowStarted.countDown();
			releaseSlow.await(30, TimeUnit.SECONDS);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class GroupConfig {

		@Bean
		GroupHandler groupHandler(JdbcTemplate jdbc) {
			return new GroupHandler(jdbc);
		}

	}

	static class GroupHandler {

		private final JdbcTemplate jdbc;

		GroupHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "group")
		void group(String payload, TaskContext context) {
			insert(this.jdbc, context, payload);
			while (payload.equals("hangs") && !releaseHung) {
				Thread.onSpinWait(); // deaf to the timeout's interrupt, as a handler stuck in a loop is
				try {
					Thread.sleep(10);
				}
				catch (InterruptedException ex) {
					// ignored on purpose
				}
			}
		}

	}

}
