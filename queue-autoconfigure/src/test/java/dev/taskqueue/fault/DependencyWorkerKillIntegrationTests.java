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
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A diamond of four tasks (A before B and C, B and C before D) on three worker processes, one of which is killed with
 * SIGKILL while it runs B: B runs again elsewhere once the victim's session expires, every task's work commits
 * exactly once, and D starts only after B and C are done, on the database clock.
 */
class DependencyWorkerKillIntegrationTests {

	private final List<ForkedWorker> workers = new ArrayList<>();

	@AfterEach
	void killWorkers() {
		this.workers.forEach(ForkedWorker::close);
	}

	@Test
	void aDiamondWhoseWorkerIsKilledRunsEachTaskOnceAndTheLastAfterTheMiddleOnes() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			JdbcTemplate jdbc = producer.getBean(JdbcTemplate.class);
			jdbc.execute(WorkerProcess.GRAPH_TABLES);
			// Sessions time out after 4 s, not 2: on a loaded machine a worker could expire another's live session and
			// run a task twice that no kill released (as in WorkerKillIntegrationTests).
			String[] settings = { "taskqueue.worker.session-timeout=4s", "taskqueue.worker.heartbeat-interval=500ms",
					"taskqueue.worker.poll-interval=200ms", "spring.datasource.hikari.maximum-pool-size=6",
					"worker.graph-millis=1500" };
			for (String name : List.of("graph-1", "graph-2", "graph-3")) {
				this.workers.add(ForkedWorker.start(name, url, Map.of(), settings));
			}
			for (ForkedWorker worker : this.workers) {
				worker.awaitStarted(Duration.ofSeconds(90));
			}
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			UUID[] ids = new TransactionTemplate(producer.getBean(DataSourceTransactionManager.class))
				.execute((status) -> {
					UUID a = taskQueue.enqueue(TaskRequest.of("graph", "a"));
					UUID b = taskQueue.enqueue(TaskRequest.of("graph", "b").withDependsOn(a));
					UUID c = taskQueue.enqueue(TaskRequest.of("graph", "c").withDependsOn(a));
					UUID d = taskQueue.enqueue(TaskRequest.of("graph", "d").withDependsOn(b, c));
					return new UUID[] { a, b, c, d };
				});

			Await.until("b started", Duration.ofSeconds(90),
					() -> count(jdbc, "SELECT count(*) FROM graph_start WHERE name = 'b'") == 1);
			String victim = jdbc.queryForObject("SELECT worker FROM graph_start WHERE name = 'b'", String.class);
			this.workers.stream().filter((worker) -> worker.log().getFileName().toString().startsWith(victim + "-"))
				.findFirst()
				.orElseThrow()
				.kill();
			Await.until("d is done", Duration.ofSeconds(120),
					() -> count(jdbc, "SELECT count(*) FROM graph_done WHERE name = 'd'") == 1);
			Await.until("nothing is left", Duration.ofSeconds(30),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);

			assertThat(jdbc.queryForList("SELECT task_id FROM graph_done ORDER BY name", UUID.class))
				.as("each task's work committed exactly once")
				.containsExactly(ids);
			assertThat(count(jdbc, "SELECT count(*) FROM graph_done WHERE name = 'b' AND worker <> ?", victim))
				.as("b was done by a survivor").isEqualTo(1);
			assertThat(jdbc.queryForList("SELECT attempt FROM graph_start WHERE name = 'b' ORDER BY attempt",
					Integer.class)).as("b ran twice: killed, then again").containsExactly(1, 2);
			assertThat(count(jdbc, "SELECT count(*) FROM graph_start WHERE name IN ('a', 'd')")).isEqualTo(2);
			assertThat(jdbc.queryForObject("""
					SELECT (SELECT started_at FROM graph_start WHERE name = 'd')
					       > (SELECT max(done_at) FROM graph_done WHERE name IN ('b', 'c'))
					   AND (SELECT min(started_at) FROM graph_start WHERE name IN ('b', 'c'))
					       > (SELECT done_at FROM graph_done WHERE name = 'a')
					""", Boolean.class)).as("d started after b and c were done, b and c after a").isTrue();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_waiting_task")).isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
		}
	}

	private static int count(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.queryForObject(sql, Integer.class, args);
	}

}
