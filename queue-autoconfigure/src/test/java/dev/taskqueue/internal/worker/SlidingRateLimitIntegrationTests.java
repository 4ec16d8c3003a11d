package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every interval of the period's length, wherever it begins: three instances of concurrency 4 drain 100 tasks of a
 * queue limited to 10 starts per second. Each handler records its task's {@code claimed_at} (the database's time of
 * the claim that started it). For every start {@code s}, the starts in {@code [s, s + 1 s)} are counted: with the
 * sliding window the most is exactly 10 (never more, and reached). The backlog arrives in the middle of a second of
 * the database clock, the worst case of fixed windows: with {@code window=fixed} the same count reaches more than
 * the limit (10 at the end of one window, 10 at the start of the next), never more than twice it, while each fixed
 * window holds at most 10.
 */
class SlidingRateLimitIntegrationTests {

	private static final int LIMIT = 10;

	private static final int TASKS = 100;

	@ParameterizedTest
	@ValueSource(strings = { "sliding", "fixed" })
	void noIntervalOfThePeriodsLengthHoldsMoreStartsThanTheLimit(String window) {
		String url = TestDatabase.createDatabase();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				instances.add(TestApplications.start(url, List.of(Config.class), "taskqueue.worker.concurrency=4",
						"taskqueue.queues.paced.rate-limit.limit=" + LIMIT,
						"taskqueue.queues.paced.rate-limit.period=1s",
						"taskqueue.queues.paced.rate-limit.window=" + window));
			}
			JdbcTemplate jdbc = instances.get(0).getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE started (task_id uuid NOT NULL, claimed_at timestamptz NOT NULL)");
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < TASKS; i++) {
				requests.add(TaskRequest.of("paced", i));
			}
			Await.until("the database clock is early in a second", Duration.ofSeconds(10), () -> jdbc.queryForObject(
					"SELECT extract(epoch FROM clock_timestamp()) % 1 BETWEEN 0.2 AND 0.4", Boolean.class));
			instances.get(2).getBean(TaskQueue.class).enqueueAll(requests);
			Await.until("all tasks are done", Duration.ofSeconds(90),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForObject("SELECT count(DISTINCT task_id) FROM started", Integer.class))
				.isEqualTo(TASKS);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM started", Integer.class)).isEqualTo(TASKS);
			int most = jdbc.queryForObject("""
					SELECT max((SELECT count(*) FROM started b
					            WHERE b.claimed_at >= a.claimed_at AND b.claimed_at < a.claimed_at + interval '1 second'))
					FROM started a
					""", Integer.class);
			int mostPerFixedWindow = jdbc.queryForObject("""
					SELECT max(starts) FROM (SELECT count(*) AS starts FROM started
					                         GROUP BY floor(extract(epoch FROM claimed_at))) w
					""", Integer.class);
			System.out.println("window=" + window + ": the most starts in one sliding second " + most
					+ ", in one fixed window " + mostPerFixedWindow);
			if (window.equals("sliding")) {
				assertThat(most).as("the most starts in any [s, s + 1 s)").isEqualTo(LIMIT);
			}
			else {
				assertThat(mostPerFixedWindow).as("the most starts in a fixed window").isEqualTo(LIMIT);
				assertThat(most).as("the most starts in any [s, s + 1 s)").isGreaterThan(LIMIT)
					.isLessThanOrEqualTo(2 * LIMIT);
			}
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		PacedHandler pacedHandler(JdbcTemplate jdbc) {
			return new PacedHandler(jdbc);
		}

	}

	static class PacedHandler {

		private final JdbcTemplate jdbc;

		PacedHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		/** In the handler's transaction, which also completes the task, so the task's row is still there. */
		@TaskHandler(queue = "paced")
		void handle(int payload, TaskContext context) {
			this.jdbc.update("INSERT INTO started SELECT id, claimed_at FROM taskqueue_task WHERE id = ?", context.id());
		}

	}

}
