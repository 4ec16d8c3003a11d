package dev.taskqueue.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

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
 * A worker process killed with SIGKILL in the middle of 10,000 tasks loses and doubles nothing: the surviving
 * process takes its claimed tasks over within the session timeout plus a heartbeat and a poll, and finishes.
 */
class WorkerKillIntegrationTests {

	private static final int TASKS = 10_000;

	/**
	 * Eight heartbeats: on a loaded machine (CI, or builds beside it) a 2 s timeout let the survivor expire the
	 * victim's live session before the kill, which then claimed under a new one and held nothing under the old.
	 */
	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

	private static final Duration HEARTBEAT_INTERVAL = Duration.ofMillis(500);

	private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

	private static final Duration SLACK = Duration.ofSeconds(2);

	private final List<ForkedWorker> workers = new ArrayList<>();

	@AfterEach
	void killWorkers() {
		this.workers.forEach(ForkedWorker::close);
	}

	@Test
	void survivorFinishesTheTasksOfAKilledWorkerExactlyOnce() throws Exception {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			JdbcTemplate jdbc = producer.getBean(JdbcTemplate.class);
			jdbc.execute(WorkerProcess.BUSINESS_TABLE);
			String[] settings = { "taskqueue.worker.session-timeout=" + SESSION_TIMEOUT.toMillis() + "ms",
					"taskqueue.worker.heartbeat-interval=" + HEARTBEAT_INTERVAL.toMillis() + "ms",
					"taskqueue.worker.poll-interval=" + POLL_INTERVAL.toMillis() + "ms",
					"taskqueue.worker.concurrency=8", "spring.datasource.hikari.maximum-pool-size=10",
					"worker.handler-millis=10" }; // long enough that the victim always holds claims when killed
			ForkedWorker victim = fork("victim", url, settings);
			ForkedWorker survivor = fork("survivor", url, settings);
			UUID victimSession = victim.awaitStarted(Duration.ofSeconds(90));
			UUID survivorSession = survivor.awaitStarted(Duration.ofSeconds(90));
			enqueue(producer.getBean(TaskQueue.class));

			Await.until("30 % of the tasks are done, by both workers", Duration.ofSeconds(90),
					() -> count(jdbc, "SELECT count(*) FROM business") >= TASKS * 3 / 10
							&& count(jdbc, "SELECT count(DISTINCT worker) FROM business") == 2);
			victim.kill();
			long killedAt = System.nanoTime();
			int doneAtKill = count(jdbc, "SELECT count(*) FROM business");
			// A claim the victim committed just before it died becomes visible a moment later.
			Thread.sleep(200);
			String orphans = "{" + String.join(",", jdbc.queryForList(
					"SELECT id::text FROM taskqueue_task WHERE claimed_by = ?", String.class, victimSession)) + "}";
			int orphaned = count(jdbc, "SELECT cardinality(CAST(? AS uuid[]))", orphans);
			assertThat(orphaned).as("the victim held claimed tasks when it was killed (its session was expired "
					+ victim.linesContaining("was expired by another instance") + " times before)").isPositive();

			Await.until("the victim's session is expired", Duration.ofSeconds(30),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_session WHERE id = ?", victimSession) == 0);
			Duration released = Duration.ofNanos(System.nanoTime() - killedAt);
			Await.until("the victim's tasks are picked up by the survivor", Duration.ofSeconds(30),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task WHERE id = ANY(CAST(? AS uuid[])) "
							+ "AND (claimed_by IS NULL OR claimed_by = ?)", orphans, victimSession) == 0);
			Duration pickedUp = Duration.ofNanos(System.nanoTime() - killedAt);
			System.out.println("MEASURED: SIGKILL at " + doneAtKill + "/" + TASKS + " tasks done: the victim's "
					+ orphaned + " claimed tasks were released " + released.toMillis() + " ms and picked up "
					+ pickedUp.toMillis() + " ms after the kill (session-timeout " + SESSION_TIMEOUT.toMillis()
					+ " ms, heartbeat-interval " + HEARTBEAT_INTERVAL.toMillis() + " ms, poll-interval "
					+ POLL_INTERVAL.toMillis() + " ms)");
			assertThat(pickedUp)
				.isLessThanOrEqualTo(SESSION_TIMEOUT.plus(HEARTBEAT_INTERVAL).plus(POLL_INTERVAL).plus(SLACK));

			Await.until("the survivor has finished every task", Duration.ofSeconds(120),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(count(jdbc, "SELECT count(*) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(DISTINCT task_id) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(DISTINCT n) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE task_id = ANY(CAST(? AS uuid[])) "
					+ "AND attempt = 2 AND worker = 'survivor'", orphans))
				.as("every task the victim held ran again, once, in the survivor").isEqualTo(orphaned);
			assertThat(jdbc.queryForList("SELECT id FROM taskqueue_session", UUID.class))
				.containsExactly(survivorSession);
			assertThat(survivor.linesContaining("was expired by another instance")).isZero();
		}
	}

	private ForkedWorker fork(String name, String url, String... settings) {
		ForkedWorker worker = ForkedWorker.start(name, url, Map.of(), settings);
		this.workers.add(worker);
		return worker;
	}

	private static void enqueue(TaskQueue taskQueue) {
		for (int batch = 0; batch < TASKS / 1_000; batch++) {
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < 1_000; i++) {
				requests.add(TaskRequest.of("business", batch * 1_000 + i));
			}
			taskQueue.enqueueAll(requests);
		}
	}

	private static int count(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.queryForObject(sql, Integer.class, args);
	}

}
