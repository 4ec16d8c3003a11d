package dev.taskqueue.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deploy must not use up attempts: a worker stopped with SIGTERM while its handlers run longer than the shutdown
 * timeout gives their tasks back, ready at once and with their attempt not counted, before its session ends. With
 * {@code max-attempts=1} the task then runs to its end once on the next instance, instead of going to the dead
 * letters with an attempt count above the maximum and a generic error.
 */
class SigtermGiveBackIntegrationTests {

	private static final int TASKS = 2;

	private final List<ForkedWorker> workers = new ArrayList<>();

	@AfterEach
	void killWorkers() {
		this.workers.forEach(ForkedWorker::close);
	}

	@Test
	void handlersInterruptedByShutdownGiveTheirTasksBackWithoutCountingAnAttempt() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			JdbcTemplate jdbc = producer.getBean(JdbcTemplate.class);
			jdbc.execute(WorkerProcess.BUSINESS_TABLE);
			ForkedWorker stopping = ForkedWorker.start("stopping", url, Map.of(),
					"taskqueue.worker.shutdown-timeout=1s", "taskqueue.worker.concurrency=" + TASKS,
					"taskqueue.queues.business.max-attempts=1", "worker.handler-millis=20000");
			this.workers.add(stopping);
			stopping.awaitStarted(Duration.ofSeconds(90));
			TaskQueue queue = producer.getBean(TaskQueue.class);
			for (int n = 0; n < TASKS; n++) {
				queue.enqueue(TaskRequest.of("business", n));
			}
			Await.until("both handlers run", Duration.ofSeconds(30),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NOT NULL") == TASKS);

			stopping.terminate(Duration.ofSeconds(30));

			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NULL AND attempt = 0 "
					+ "AND run_at <= now()")).as("waiting again, due now, attempt not counted").isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_session")).isZero();
			assertThat(stopping.linesContaining("goes to the dead letters")).isZero();

			try (ConfigurableApplicationContext next = TestApplications.start(url,
					List.of(WorkerProcess.Config.class), "taskqueue.queues.business.max-attempts=1",
					"worker.name=next")) {
				Await.until("the next instance has run them", Duration.ofSeconds(30),
						() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			}
			assertThat(count(jdbc, "SELECT count(*) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(DISTINCT n) FROM business WHERE attempt = 1 AND worker = 'next'"))
				.isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
		}
	}

	private static int count(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.queryForObject(sql, Integer.class, args);
	}

}
