package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task whose last attempt ended without an outcome, because its instance died, is released by the sweep of dead
 * sessions and then given up without running: its dead letter says so, keeps the error of the attempt before, and
 * shows {@code max-attempts} attempts, not the one more its last claim counted.
 */
class DeadSessionGiveUpIntegrationTests {

	@Test
	void aTaskOfADeadSessionPastItsLastAttemptIsGivenUpWithItsRealErrorAndAtMostMaxAttempts() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			producer.getBean(TaskQueue.class).enqueue("once", 1);
		}
		// Its first attempt failed and was recorded; its second, the last, was claimed by an instance that then died.
		jdbc.update("UPDATE taskqueue_task SET attempt = 2, last_error = 'java.lang.IllegalStateException: the real "
				+ "error', claimed_by = ?, claimed_at = now()", UUID.randomUUID());
		try (ConfigurableApplicationContext worker = TestApplications.start(url, List.of(Config.class),
				"taskqueue.queues.once.max-attempts=2", "taskqueue.worker.heartbeat-interval=100ms",
				"taskqueue.worker.session-timeout=1s")) {
			Await.until("the task is given up", Duration.ofSeconds(30),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class) == 1);
		}
		Map<String, Object> dead = jdbc.queryForMap("SELECT attempts, error FROM taskqueue_dead_task");
		assertThat(dead.get("attempts")).isEqualTo(2);
		assertThat((String) dead.get("error")).contains("Gave up after 2 attempts")
			.contains("java.lang.IllegalStateException: the real error");
		assertThat(Once.runs).isZero();
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Once once() {
			return new Once();
		}

	}

	static class Once {

		static volatile int runs;

		@TaskHandler(queue = "once")
		void handle(int n) {
			runs++;
		}

	}

}
