package dev.taskqueue.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.taskqueue.BatchResult;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.BatchProgress;
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
 * One of two worker processes is killed with SIGKILL in the middle of a batch: the survivor runs the victim's tasks
 * again once its session expires, and the batch's {@code then} task comes exactly once, with every task counted as
 * completed.
 */
class BatchWorkerKillIntegrationTests {

	private static final int TASKS = 2_000;

	private final List<ForkedWorker> workers = new ArrayList<>();

	@AfterEach
	void killWorkers() {
		this.workers.forEach(ForkedWorker::close);
	}

	@Test
	void aBatchWhoseWorkerIsKilledIsFollowedOnceWithEveryTaskCompleted() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			JdbcTemplate jdbc = producer.getBean(JdbcTemplate.class);
			jdbc.execute(WorkerProcess.BUSINESS_TABLE);
			// Sessions time out after 4 s, not 2: on a loaded machine the survivor could expire the victim's live
			// session before the kill (as it did in WorkerKillIntegrationTests).
			String[] settings = { "taskqueue.worker.session-timeout=4s", "taskqueue.worker.heartbeat-interval=500ms",
					"taskqueue.worker.poll-interval=200ms", "taskqueue.worker.concurrency=8",
					"spring.datasource.hikari.maximum-pool-size=10", "worker.handler-millis=10" };
			ForkedWorker victim = fork("batch-victim", url, settings);
			ForkedWorker survivor = fork("batch-survivor", url, settings);
			UUID victimSession = victim.awaitStarted(Duration.ofSeconds(90));
			survivor.awaitStarted(Duration.ofSeconds(90));
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < TASKS; i++) {
				requests.add(TaskRequest.of("business", i));
			}
			// Nobody handles the then task's queue, so it stays in the table to be counted.
			BatchResult batch = producer.getBean(TaskQueue.class)
				.enqueueBatch(requests, TaskRequest.of("batch-then", "report"));

			Await.until("30 % of the tasks are done, by both workers", Duration.ofSeconds(90),
					() -> count(jdbc, "SELECT count(*) FROM business") >= TASKS * 3 / 10
							&& count(jdbc, "SELECT count(DISTINCT worker) FROM business") == 2);
			victim.kill();
			Await.until("the then task is enqueued", Duration.ofSeconds(120),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task WHERE queue = 'batch-then'") > 0);

			assertThat(count(jdbc, "SELECT count(*) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(DISTINCT n) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE attempt = 2 AND worker = 'batch-survivor'"))
				.as("tasks the victim held ran again in the survivor").isPositive();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_task WHERE batch_id = ?", batch.id())).isZero();
			assertThat(jdbc.queryForList("SELECT id FROM taskqueue_task WHERE queue = 'batch-then'", UUID.class))
				.containsExactly(batch.thenTaskId());
			assertThat(jdbc.queryForMap("SELECT headers ->> 'taskqueue-batch-total' AS total, headers ->> "
					+ "'taskqueue-batch-completed' AS completed, headers ->> 'taskqueue-batch-dead' AS dead "
					+ "FROM taskqueue_task WHERE id = ?", batch.thenTaskId()))
				.isEqualTo(Map.of("total", "2000", "completed", "2000", "dead", "0"));
			BatchProgress progress = producer.getBean(TaskQueueOperations.class).batch(batch.id()).orElseThrow();
			assertThat(progress.finished()).isTrue();
			assertThat(progress.completed()).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_session WHERE id = ?", victimSession)).isZero();
		}
	}

	private ForkedWorker fork(String name, String url, String... settings) {
		ForkedWorker worker = ForkedWorker.start(name, url, Map.of(), settings);
		this.workers.add(worker);
		return worker;
	}

	private static int count(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.queryForObject(sql, Integer.class, args);
	}

}
