package dev.taskqueue.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing one of two instances while 500 tasks are running or waiting lets its running handlers finish, gives its
 * claims back at once, so that the other instance finishes the rest long before the session timeout, and runs no
 * task twice.
 */
class ShutdownUnderLoadIntegrationTests {

	private static final int TASKS = 500;

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

	static final Map<String, AtomicInteger> started = new ConcurrentHashMap<>();

	static final Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();

	@Test
	void closedInstanceFinishesItsRunningTasksAndReleasesTheRestAtOnce() {
		String url = TestDatabase.createDatabase();
		String[] settings = { "taskqueue.worker.session-timeout=" + SESSION_TIMEOUT.toSeconds() + "s",
				"taskqueue.worker.heartbeat-interval=5s", "taskqueue.worker.concurrency=8",
				"taskqueue.worker.shutdown-timeout=" + SHUTDOWN_TIMEOUT.toSeconds() + "s",
				"spring.datasource.hikari.maximum-pool-size=10" };
		try (ConfigurableApplicationContext stays = start(url, "stays", settings);
				ConfigurableApplicationContext closing = start(url, "closing", settings)) {
			JdbcTemplate jdbc = stays.getBean(JdbcTemplate.class);
			UUID closingSession = jdbc.queryForObject("SELECT id FROM taskqueue_session WHERE name LIKE 'closing %'",
					UUID.class);
			List<TaskRequest> requests = new ArrayList<>();
			for (int n = 0; n < TASKS; n++) {
				requests.add(TaskRequest.of("work", n));
			}
			closing.getBean(TaskQueue.class).enqueueAll(requests);
			Await.until("both instances are busy", Duration.ofSeconds(30), () -> finished("closing") >= 10
					&& finished("stays") >= 10 && started("closing") - finished("closing") >= 4);

			int runningAtClose = started("closing") - finished("closing");
			long closeStart = System.nanoTime();
			closing.close();
			Duration closeTook = Duration.ofNanos(System.nanoTime() - closeStart);
			int left = count(jdbc, "SELECT count(*) FROM taskqueue_task");
			assertThat(runningAtClose).as("handlers were running when the instance was closed").isPositive();
			assertThat(closeTook).isLessThan(SHUTDOWN_TIMEOUT);
			assertThat(finished("closing")).as("every handler it started finished").isEqualTo(started("closing"));
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_session WHERE id = ?", closingSession)).isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_task WHERE claimed_by = ?", closingSession))
				.as("no claim of the closed instance is left").isZero();

			Await.until("the other instance finishes the rest", SESSION_TIMEOUT,
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			Duration rest = Duration.ofNanos(System.nanoTime() - closeStart);
			System.out.println("MEASURED: graceful shutdown under load: close() took " + closeTook.toMillis()
					+ " ms with " + runningAtClose + " handlers running; the other instance finished the remaining "
					+ left + " tasks " + rest.toMillis() + " ms after close began (session-timeout "
					+ SESSION_TIMEOUT.toSeconds() + " s)");
			// Well before the closed session could have expired; about 3 s on an idle machine, several times that on a
			// loaded one.
			assertThat(rest).isLessThan(SESSION_TIMEOUT.dividedBy(2));
			assertThat(count(jdbc, "SELECT count(*) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(DISTINCT task_id) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE attempt <> 1")).as("no task ran twice")
				.isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			assertThat(finished("closing") + finished("stays")).isEqualTo(TASKS);
		}
	}

	private static ConfigurableApplicationContext start(String url, String name, String... settings) {
		List<String> properties = new ArrayList<>(List.of(settings));
		properties.add("spring.application.name=" + name);
		ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				properties.toArray(String[]::new));
		context.getBean(JdbcTemplate.class)
			.execute("CREATE TABLE IF NOT EXISTS business (n int NOT NULL, task_id uuid NOT NULL, "
					+ "instance text NOT NULL, attempt int NOT NULL)");
		return context;
	}

	private static int started(String instance) {
		return started.computeIfAbsent(instance, (key) -> new AtomicInteger()).get();
	}

	private static int finished(String instance) {
		return finished.computeIfAbsent(instance, (key) -> new AtomicInteger()).get();
	}

	private static int count(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.queryForObject(sql, Integer.class, args);
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		WorkHandler workHandler(JdbcTemplate jdbc, Environment environment) {
			return new WorkHandler(jdbc, environment.getRequiredProperty("spring.application.name"));
		}

	}

	static class WorkHandler {

		private final JdbcTemplate jdbc;

		private final String instance;

		WorkHandler(JdbcTemplate jdbc, String instance) {
			this.jdbc = jdbc;
			this.instance = instance;
		}

		@TaskHandler(queue = "work")
		void handle(int n, TaskContext context) throws InterruptedException {
			started.computeIfAbsent(this.instance, (key) -> new AtomicInteger()).incrementAndGet();
			Thread.sleep(50);
			this.jdbc.update("INSERT INTO business (n, task_id, instance, attempt) VALUES (?, ?, ?, ?)", n,
					context.id(), this.instance, context.attempt());
			finished.computeIfAbsent(this.instance, (key) -> new AtomicInteger()).incrementAndGet();
		}

	}

}
