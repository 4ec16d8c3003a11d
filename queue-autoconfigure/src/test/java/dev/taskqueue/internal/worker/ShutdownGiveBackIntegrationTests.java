package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;

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
 * The guard on shutdown give-backs: a task whose handler outlasts every shutdown is given back without counting an
 * attempt only {@link TaskRepository#FREE_SHUTDOWN_GIVE_BACKS} times; later shutdowns count its attempts, and once
 * they are used up it goes to the dead letters with no more attempts than {@code max-attempts}.
 */
class ShutdownGiveBackIntegrationTests {

	private static final int MAX_ATTEMPTS = 2;

	@Test
	void aTaskInterruptedByEveryShutdownCountsAttemptsAgainAfterTheFreeGiveBacks() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		int shutdowns = TaskRepository.FREE_SHUTDOWN_GIVE_BACKS + MAX_ATTEMPTS;
		for (int i = 1; i <= shutdowns; i++) {
			try (ConfigurableApplicationContext instance = start(url)) {
				if (i == 1) {
					instance.getBean(TaskQueue.class).enqueue("slow", 1);
				}
				Await.until("the handler runs", Duration.ofSeconds(30), () -> jdbc.queryForObject(
						"SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NOT NULL", Integer.class) == 1);
			}
			Map<String, Object> task = jdbc.queryForMap(
					"SELECT attempt, claimed_by, shutdown_give_backs, run_at <= now() AS due FROM taskqueue_task");
			int counted = Math.max(0, i - TaskRepository.FREE_SHUTDOWN_GIVE_BACKS);
			assertThat(task).as("after shutdown " + i)
				.containsEntry("attempt", counted)
				.containsEntry("shutdown_give_backs", i)
				.containsEntry("due", true);
			assertThat(task.get("claimed_by")).isNull();
		}
		try (ConfigurableApplicationContext instance = start(url)) {
			Await.until("the task is given up", Duration.ofSeconds(30),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class) == 1);
		}
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
		Map<String, Object> dead = jdbc.queryForMap("SELECT attempts, error FROM taskqueue_dead_task");
		assertThat(dead.get("attempts")).as("never more than max-attempts").isEqualTo(MAX_ATTEMPTS);
		assertThat((String) dead.get("error")).contains("Gave up after "
				+ MAX_ATTEMPTS + " attempts");
		assertThat(Slow.runs).isEqualTo(shutdowns);
	}

	private static ConfigurableApplicationContext start(String url) {
		return TestApplications.start(url, List.of(Config.class), "taskqueue.worker.shutdown-timeout=200ms",
				"taskqueue.queues.slow.max-attempts=" + MAX_ATTEMPTS);
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Slow slow() {
			return new Slow();
		}

	}

	static class Slow {

		static volatile int runs;

		@TaskHandler(queue = "slow")
		void handle(int n) throws InterruptedException {
			runs++;
			Thread.sleep(60_000); // outlasts every shutdown
		}

	}

}
