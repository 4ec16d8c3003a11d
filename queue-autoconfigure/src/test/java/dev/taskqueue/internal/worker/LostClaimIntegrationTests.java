package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.internal.jdbc.TaskTables;
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
 * An instance whose session expires while its handler runs (a long GC pause, a network partition) must not
 * commit that handler's work: another instance has taken the task over and completes it once.
 */
class LostClaimIntegrationTests {

	static final CountDownLatch slowHandlerStarted = new CountDownLatch(1);

	static final CountDownLatch releaseSlowHandler = new CountDownLatch(1);

	static final List<Integer> slowAttempts = new CopyOnWriteArrayList<>();

	static final List<Integer> fastAttempts = new CopyOnWriteArrayList<>();

	@Test
	void handlerOfAnExpiredSessionRollsBackAndAnotherInstanceCompletesTheTaskOnce() throws Exception {
		String url = TestDatabase.createDatabase();
		// Heartbeats far apart, so only this test decides when the first session expires.
		String[] settings = { "taskqueue.worker.heartbeat-interval=20s", "taskqueue.worker.session-timeout=60s" };
		try (ConfigurableApplicationContext slow = TestApplications.start(url, List.of(SlowConfig.class), settings)) {
			JdbcTemplate jdbc = slow.getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE business (task_id uuid NOT NULL, attempt int NOT NULL)");
			UUID id = slow.getBean(TaskQueue.class).enqueue("work", "payload");
			assertThat(slowHandlerStarted.await(20, TimeUnit.SECONDS)).isTrue();

			jdbc.update("UPDATE taskqueue_session SET heartbeat_at = now() - interval '1 hour'");
			SessionRepository sessions = new SessionRepository(slow.getBean(DataSource.class), slow.getBean(TaskTables.class));
			assertThat(sessions.expire(Duration.ofSeconds(60))).isEqualTo(1);

			try (ConfigurableApplicationContext fast = TestApplications.start(url, List.of(FastConfig.class),
					settings)) {
				Await.until("the second instance completes the task", Duration.ofSeconds(20),
						() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
				releaseSlowHandler.countDown();
				slow.close(); // waits for the slow handler to finish and roll back
				JdbcTemplate fastJdbc = fast.getBean(JdbcTemplate.class);
				assertThat(fastJdbc.queryForList("SELECT attempt FROM business WHERE task_id = ?", Integer.class, id))
					.containsExactly(2);
				assertThat(slowAttempts).containsExactly(1);
				assertThat(fastAttempts).containsExactly(2);
				assertThat(fastJdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
			}
		}
		finally {
			releaseSlowHandler.countDown();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class SlowConfig {

		@Bean
		SlowHandler slowHandler(JdbcTemplate jdbc) {
			return new SlowHandler(jdbc);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FastConfig {

		@Bean
		FastHandler fastHandler(JdbcTemplate jdbc) {
			return new FastHandler(jdbc);
		}

	}

	static class SlowHandler {

		private final JdbcTemplate jdbc;

		SlowHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "work")
		void handle(String payload, TaskContext context) throws InterruptedException {
			slowAttempts.add(context.attempt());
			this.jdbc.update("INSERT INTO business (task_id, attempt) VALUES (?, ?)", context.id(), context.attempt());
			slowHandlerStarted.countDown();
			releaseSlowHandler.await(30, TimeUnit.SECONDS);
		}

	}

	static class FastHandler {

		private final JdbcTemplate jdbc;

		FastHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "work")
		void handle(String payload, TaskContext context) {
			fastAttempts.add(context.attempt());
			this.jdbc.update("INSERT INTO business (task_id, attempt) VALUES (?, ?)", context.id(), context.attempt());
		}

	}

}
