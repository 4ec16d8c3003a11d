package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rate-limit} bounds the task starts of a queue per fixed window of the database clock, across instances:
 * three instances of concurrency 4 drain a backlog of a queue limited to 20 starts per 500 ms. Each handler records
 * its task's {@code claimed_at} (the database's time of the claim that started it) in its own transaction; no
 * window {@code [epoch + k * 500ms, epoch + (k + 1) * 500ms)} has more than 20, and every window while the backlog
 * waits has at least 18 (90 %).
 */
class RateLimitIntegrationTests {

	private static final int LIMIT = 20;

	private static final long PERIOD_MICROS = 500_000;

	private static final int TASKS = 7 * LIMIT + 5;

	@Test
	void threeInstancesStartAtMostTheLimitPerWindowAndUseIt() {
		String url = TestDatabase.createDatabase();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				instances.add(TestApplications.start(url, List.of(Config.class), "taskqueue.worker.concurrency=4",
						"taskqueue.queues.paced.rate-limit.limit=" + LIMIT,
						"taskqueue.queues.paced.rate-limit.period=" + (PERIOD_MICROS / 1000) + "ms"));
			}
			JdbcTemplate jdbc = instances.get(0).getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE started (task_id uuid NOT NULL, claimed_at timestamptz NOT NULL)");
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < TASKS; i++) {
				requests.add(TaskRequest.of("paced", i));
			}
			instances.get(2).getBean(TaskQueue.class).enqueueAll(requests);
			Await.until("all tasks are done", Duration.ofSeconds(60),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForObject("SELECT count(DISTINCT task_id) FROM started", Integer.class))
				.isEqualTo(TASKS);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM started", Integer.class)).isEqualTo(TASKS);
			List<Map<String, Object>> windows = jdbc.queryForList("""
					SELECT floor(extract(epoch FROM claimed_at) * 1000000 / ?)::bigint AS window, count(*) AS starts
					FROM started GROUP BY 1 ORDER BY 1
					""", PERIOD_MICROS);
			List<Long> starts = windows.stream().map((window) -> ((Number) window.get("starts")).longValue()).toList();
			assertThat(starts).as("starts per window").allMatch((count) -> count <= LIMIT);
			// The first window began before the enqueue, the last one ends the backlog: those two may have fewer.
			assertThat(starts.subList(1, starts.size() - 1)).as("starts per window while a backlog waits")
				.allMatch((count) -> count >= LIMIT * 9 / 10);
			long first = ((Number) windows.get(0).get("window")).longValue();
			long last = ((Number) windows.get(windows.size() - 1).get("window")).longValue();
			assertThat(last - first + 1).as("no window without a start").isEqualTo(windows.size());
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
