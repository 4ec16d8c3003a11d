package dev.taskqueue.internal.producer;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.taskqueue.BatchInfo;
import dev.taskqueue.BatchResult;
import dev.taskqueue.DependencyFailure;
import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.BatchProgress;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.operations.OperationsBeans;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code TaskRequest.withDependsOn}: a task becomes due once, after every task it names has completed; chains,
 * diamonds across instances, dead prerequisites, ids that name no task, and dependencies inside a batch. Every
 * handler writes a {@code ran} row in its task's transaction, with its start and end on the database clock, so a
 * row exists exactly for each run that committed.
 */
class TaskDependencyIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	static final String RAN_TABLE = """
			CREATE TABLE ran (name text NOT NULL, task_id uuid NOT NULL, attempt int NOT NULL,
			    started_at timestamptz NOT NULL, done_at timestamptz NOT NULL DEFAULT clock_timestamp())
			""";

	@Test
	void aChainOfThreeRunsOnceEachInOrder() {
		String url = database();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			UUID[] ids = transaction(context).execute((status) -> {
				UUID a = taskQueue.enqueue(TaskRequest.of("graph", "a"));
				UUID b = taskQueue.enqueue(TaskRequest.of("graph", "b").withDependsOn(a));
				UUID c = taskQueue.enqueue(TaskRequest.of("graph", "c").withDependsOn(b));
				return new UUID[] { a, b, c };
			});
			JdbcTemplate jdbc = jdbc(url);
			Await.until("the chain ran", WAIT, () -> count(jdbc, "SELECT count(*) FROM ran WHERE name = 'c'") > 0);
			assertRanOnce(jdbc, "a", "b", "c");
			assertThat(jdbc.queryForList("SELECT task_id FROM ran ORDER BY started_at", UUID.class))
				.containsExactly(ids);
			assertStartsAfterDone(jdbc, "b", "a");
			assertStartsAfterDone(jdbc, "c", "b");
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_waiting_task")).isZero();
		}
	}

	@Test
	void aDiamondOnThreeInstancesRunsEachTaskOnceAndTheLastAfterBothMiddleOnes() {
		String url = database();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				instances.add(TestApplications.start(url, List.of(Config.class)));
			}
			TaskQueue taskQueue = instances.get(0).getBean(TaskQueue.class);
			JdbcTemplate jdbc = jdbc(url);
			for (int round = 0; round < 5; round++) {
				int r = round;
				transaction(instances.get(round % 3)).executeWithoutResult((status) -> {
					UUID a = taskQueue.enqueue(TaskRequest.of("graph", "a" + r));
					UUID b = taskQueue.enqueue(TaskRequest.of("graph", "b" + r).withDependsOn(a));
					UUID c = taskQueue.enqueue(TaskRequest.of("graph", "c" + r).withDependsOn(List.of(a)));
					taskQueue.enqueue(TaskRequest.of("graph", "d" + r).withDependsOn(b, c));
				});
			}
			Await.until("five diamonds ran", WAIT,
					() -> count(jdbc, "SELECT count(*) FROM ran WHERE name LIKE 'd%'") == 5);
			for (ConfigurableApplicationContext instance : instances) {
				assertThat(OperationsBeans.releaseDependents(instance)).isZero();
			}
			assertThat(count(jdbc, "SELECT count(*) FROM ran")).isEqualTo(20);
			assertThat(count(jdbc, "SELECT count(DISTINCT task_id) FROM ran")).isEqualTo(20);
			assertThat(count(jdbc, "SELECT count(*) FROM ran WHERE attempt <> 1")).isZero();
			for (int r = 0; r < 5; r++) {
				assertStartsAfterDone(jdbc, "b" + r, "a" + r);
				assertStartsAfterDone(jdbc, "c" + r, "a" + r);
				assertStartsAfterDone(jdbc, "d" + r, "b" + r);
				assertStartsAfterDone(jdbc, "d" + r, "c" + r);
			}
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_task")).isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_waiting_task")).isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Test
	void aDeadPrerequisiteSendsItsDependentsToTheDeadLettersUnlessTheyRunAnyway() {
		String url = database();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			UUID[] ids = transaction(context).execute((status) -> {
				UUID a = taskQueue.enqueue(TaskRequest.of("graph", "dies"));
				UUID b = taskQueue.enqueue(TaskRequest.of("graph", "b").withDependsOn(a));
				UUID c = taskQueue.enqueue(
						TaskRequest.of("graph", "c").withDependsOn(a).withDependencyFailure(DependencyFailure.RUN_ANYWAY));
				UUID d = taskQueue.enqueue(TaskRequest.of("graph", "d").withDependsOn(b));
				return new UUID[] { a, b, c, d };
			});
			JdbcTemplate jdbc = jdbc(url);
			Await.until("d is dead", WAIT,
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", ids[3]) > 0);
			Await.until("c ran", WAIT, () -> count(jdbc, "SELECT count(*) FROM ran WHERE name = 'c'") > 0);
			assertThat(jdbc.queryForList("SELECT name FROM ran", String.class)).containsExactly("c");
			assertThat(jdbc.queryForList("SELECT id FROM taskqueue_dead_task ORDER BY failed_at", UUID.class))
				.containsExactly(ids[0], ids[1], ids[3]);
			assertThat(jdbc.queryForObject("SELECT error FROM taskqueue_dead_task WHERE id = ?", String.class, ids[1]))
				.startsWith("Not run: its prerequisite " + ids[0] + " is in the dead letters (")
				.contains("a dies on purpose");
			assertThat(jdbc.queryForObject("SELECT error FROM taskqueue_dead_task WHERE id = ?", String.class, ids[3]))
				.startsWith("Not run: its prerequisite " + ids[1] + " is in the dead letters (Not run: ");
			assertThat(jdbc.queryForObject("SELECT attempts FROM taskqueue_dead_task WHERE id = ?", Integer.class,
					ids[1])).isZero();
			assertStartsAfterDoneOrDead(jdbc, ids[2], ids[0]);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_waiting_task")).isZero();
		}
	}

	@Test
	void anIdThatNamesNoTaskCountsAsCompleted() {
		String url = database();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			UUID done = taskQueue.enqueue(TaskRequest.of("graph", "a"));
			JdbcTemplate jdbc = jdbc(url);
			Await.until("a ran", WAIT, () -> count(jdbc, "SELECT count(*) FROM ran WHERE name = 'a'") > 0);
			Await.until("a is gone", WAIT, () -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			taskQueue.enqueue(TaskRequest.of("graph", "b").withDependsOn(done, UUID.randomUUID()));
			Await.until("b ran", WAIT, () -> count(jdbc, "SELECT count(*) FROM ran WHERE name = 'b'") > 0);
			assertRanOnce(jdbc, "a", "b");
		}
	}

	@Test
	void tasksOfABatchWaitForTheirPrerequisitesAndTheBatchWaitsForThem() {
		String url = database();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			BatchResult batch = transaction(context).execute((status) -> {
				UUID a = taskQueue.enqueue(TaskRequest.of("graph", "a"));
				return taskQueue.enqueueBatch(
						List.of(TaskRequest.of("graph", "b").withDependsOn(a), TaskRequest.of("graph", "c"),
								TaskRequest.of("graph", "e").withDependsOn(a)),
						TaskRequest.of("graph", "d"));
			});
			assertThat(batch.taskIds()).hasSize(3).doesNotHaveDuplicates();
			JdbcTemplate jdbc = jdbc(url);
			Await.until("d ran", WAIT, () -> count(jdbc, "SELECT count(*) FROM ran WHERE name = 'd'") > 0);
			assertRanOnce(jdbc, "a", "b", "c", "d", "e");
			assertStartsAfterDone(jdbc, "b", "a");
			assertStartsAfterDone(jdbc, "e", "a");
			assertStartsAfterDone(jdbc, "d", "b");
			assertStartsAfterDone(jdbc, "d", "e");
			assertThat(jdbc.queryForList("SELECT task_id FROM ran WHERE name IN ('b', 'c', 'e') ORDER BY name",
					UUID.class)).containsExactlyElementsOf(batch.taskIds());
			assertThat(batches.get(0)).isEqualTo(new BatchInfo(batch.id(), 3, 3, 0));
			BatchProgress progress = context.getBean(TaskQueueOperations.class).batch(batch.id()).orElseThrow();
			assertThat(progress.total()).isEqualTo(3);
			assertThat(progress.completed()).isEqualTo(3);
		}
	}

	@Test
	void aBatchCountsItsTasksWaitingForPrerequisitesAsRemainingAndTheQueueStatisticsShowThem() {
		String url = database();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			UUID a = taskQueue.enqueue(TaskRequest.of("graph", "a"));
			BatchResult batch = taskQueue.enqueueBatch(
					List.of(TaskRequest.of("graph", "b").withDependsOn(a), TaskRequest.of("graph", "c")),
					TaskRequest.of("graph", "d"));
			BatchProgress progress = producer.getBean(TaskQueueOperations.class).batch(batch.id()).orElseThrow();
			assertThat(progress).extracting(BatchProgress::total, BatchProgress::completed, BatchProgress::dead,
					BatchProgress::remaining, BatchProgress::finished).containsExactly(2, 0L, 0L, 2L, false);
			QueueStats stats = producer.getBean(TaskQueueOperations.class).queueStats().stream()
				.filter((queue) -> queue.queue().equals("graph"))
				.findFirst()
				.orElseThrow();
			assertThat(stats).extracting(QueueStats::ready, QueueStats::waitingForPrerequisites).containsExactly(2L, 1L);
			assertThat(producer.getBean(TaskQueueOperations.class).queueStats("graph"))
				.extracting(QueueStats::ready, QueueStats::waitingForPrerequisites)
				.containsExactly(2L, 1L);
			assertThat(stats.hasWaitingTasks()).isTrue();
			// c completes (as its completion would delete it); b still waits for a, so the batch is not done.
			jdbc(url).update("DELETE FROM taskqueue_task WHERE id = ?", batch.taskIds().get(1));
			BatchRepository batches = producer.getBean(BatchRepository.class);
			List<UUID> thens = transaction(producer).execute((status) -> batches.finishDone(100));
			assertThat(thens).isEmpty();
			assertThat(producer.getBean(TaskQueueOperations.class).batch(batch.id()).orElseThrow())
				.extracting(BatchProgress::completed, BatchProgress::remaining, BatchProgress::finished)
				.containsExactly(1L, 1L, false);
		}
	}

	@Test
	void theDelayCountsFromTheMomentThePrerequisitesAreDoneAndARunAtInThePastMeansNow() {
		String url = database();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			JdbcTemplate jdbc = jdbc(url);
			UUID a = taskQueue.enqueue(TaskRequest.of("graph", "a"));
			UUID delayed = taskQueue.enqueue(TaskRequest.of("graph", "b").withDependsOn(a).withDelay(Duration.ofHours(1)));
			UUID past = taskQueue.enqueue(
					TaskRequest.of("graph", "c").withDependsOn(a).withRunAt(Instant.now().minus(Duration.ofDays(1))));
			UUID[] enqueued = { delayed, past };
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_task")).isEqualTo(1);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_waiting_task")).isEqualTo(2);
			assertThat(release(producer)).isZero();
			jdbc.update("DELETE FROM taskqueue_task WHERE id = ?", a); // as its completion would
			Timestamp before = jdbc.queryForObject("SELECT now()", Timestamp.class);
			assertThat(release(producer)).isEqualTo(2);
			assertThat(jdbc.queryForObject("SELECT run_at FROM taskqueue_task WHERE id = ?", Timestamp.class,
					enqueued[0])).isAfterOrEqualTo(Timestamp.from(before.toInstant().plus(Duration.ofHours(1))));
			assertThat(jdbc.queryForObject("SELECT run_at FROM taskqueue_task WHERE id = ?", Timestamp.class,
					enqueued[1])).isAfterOrEqualTo(before).isBefore(Timestamp.from(before.toInstant().plusSeconds(60)));
			assertThat(release(producer)).isZero();
		}
	}

	@Test
	void aRolledBackEnqueueLeavesNothingWaiting() {
		String url = database();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			transaction(producer).executeWithoutResult((status) -> {
				taskQueue.enqueue(TaskRequest.of("graph", "b").withDependsOn(UUID.randomUUID()));
				status.setRollbackOnly();
			});
			assertThat(count(jdbc(url), "SELECT count(*) FROM taskqueue_waiting_task")).isZero();
		}
	}

	@Test
	void aWaitingTaskIsCancelledByIdOrWithItsQueueAndItsDependentsCountItAsCompleted() {
		String url = database();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			TaskQueueOperations operations = producer.getBean(TaskQueueOperations.class);
			JdbcTemplate jdbc = jdbc(url);
			UUID a = taskQueue.enqueue(TaskRequest.of("graph", "a"));
			UUID b = taskQueue.enqueue(TaskRequest.of("graph", "b").withDependsOn(a));
			UUID c = taskQueue.enqueue(TaskRequest.of("graph", "c").withDependsOn(b));
			assertThat(operations.cancel(b)).isTrue();
			assertThat(operations.cancel(b)).isFalse();
			assertThat(release(producer)).isEqualTo(1);
			assertThat(jdbc.queryForList("SELECT id FROM taskqueue_task ORDER BY id", UUID.class))
				.containsExactly(a, c);
			taskQueue.enqueue(TaskRequest.of("other", "x").withDependsOn(a));
			taskQueue.enqueue(TaskRequest.of("graph", "d").withDependsOn(a));
			taskQueue.enqueue(TaskRequest.of("graph", "e").withDependsOn(a));
			assertThat(operations.cancelAll("graph")).isEqualTo(4);
			assertThat(jdbc.queryForList("SELECT queue FROM taskqueue_waiting_task", String.class))
				.containsExactly("other");
		}
	}

	@Test
	void theThenTaskOfABatchCannotHavePrerequisites() {
		String url = database();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> taskQueue.enqueueBatch(List.of(TaskRequest.of("graph", "b")),
						TaskRequest.of("graph", "d").withDependsOn(UUID.randomUUID())))
				.withMessageStartingWith("then has prerequisites (dependsOn)");
			assertThat(count(jdbc(url), "SELECT count(*) FROM taskqueue_batch")).isZero();
		}
	}

	@Test
	void enqueueAllMixesDueAndWaitingTasksAndKeepsTheOrderOfItsIds() {
		String url = database();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			UUID a = taskQueue.enqueue(TaskRequest.of("graph", "a"));
			List<UUID> ids = taskQueue.enqueueAll(List.of(TaskRequest.of("graph", "b").withDependsOn(a),
					TaskRequest.of("graph", "c"), TaskRequest.of("graph", "e").withDependsOn(a)));
			JdbcTemplate jdbc = jdbc(url);
			Await.until("all ran", WAIT, () -> count(jdbc, "SELECT count(*) FROM ran") == 4);
			assertRanOnce(jdbc, "a", "b", "c", "e");
			assertThat(jdbc.queryForList("SELECT task_id FROM ran WHERE name <> 'a' ORDER BY name", UUID.class))
				.containsExactlyElementsOf(ids);
			assertStartsAfterDone(jdbc, "b", "a");
			assertStartsAfterDone(jdbc, "e", "a");
		}
	}

	private static int release(ConfigurableApplicationContext context) {
		dev.taskqueue.internal.jdbc.DependencyRepository dependencies = context
			.getBean(dev.taskqueue.internal.jdbc.DependencyRepository.class);
		return transaction(context).execute((status) -> dependencies.release(100).count());
	}

	static final List<BatchInfo> batches = new java.util.concurrent.CopyOnWriteArrayList<>();

	private static String database() {
		String url = TestDatabase.createDatabase();
		TestDatabase.execute(url, RAN_TABLE);
		batches.clear();
		return url;
	}

	private static void assertRanOnce(JdbcTemplate jdbc, String... names) {
		assertThat(jdbc.queryForList("SELECT name FROM ran ORDER BY name", String.class))
			.containsExactly(names);
		assertThat(count(jdbc, "SELECT count(*) FROM ran WHERE attempt <> 1")).isZero();
	}

	/** Every run of {@code later} started after every run of {@code earlier} was done, on the database clock. */
	private static void assertStartsAfterDone(JdbcTemplate jdbc, String later, String earlier) {
		assertThat(jdbc.queryForObject("SELECT min(l.started_at) > max(e.done_at) FROM ran l, ran e "
				+ "WHERE l.name = ? AND e.name = ?", Boolean.class, later, earlier))
			.as("%s started after %s was done", later, earlier)
			.isTrue();
	}

	private static void assertStartsAfterDoneOrDead(JdbcTemplate jdbc, UUID later, UUID dead) {
		assertThat(jdbc.queryForObject("SELECT l.started_at > d.failed_at FROM ran l, taskqueue_dead_task d "
				+ "WHERE l.task_id = ? AND d.id = ?", Boolean.class, later, dead)).isTrue();
	}

	private static TransactionTemplate transaction(ConfigurableApplicationContext context) {
		return new TransactionTemplate(context.getBean(DataSourceTransactionManager.class));
	}

	private static JdbcTemplate jdbc(String url) {
		return new JdbcTemplate(new DriverManagerDataSource(url));
	}

	private static int count(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.queryForObject(sql, Integer.class, args);
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		GraphHandler graphHandler(JdbcTemplate jdbc) {
			return new GraphHandler(jdbc);
		}

	}

	static class GraphHandler {

		private final JdbcTemplate jdbc;

		GraphHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "graph", concurrency = 4)
		void run(String name, TaskContext context) throws InterruptedException {
			if (context.batch() != null) {
				batches.add(context.batch());
			}
			Timestamp started = this.jdbc.queryForObject("SELECT clock_timestamp()", Timestamp.class);
			if (name.equals("dies")) {
				throw new NonRetryableTaskException("a dies on purpose");
			}
			// The first task of each graph takes longer, so that a dependent released too early would start while it runs.
			Thread.sleep(name.startsWith("a") ? 300 : 20);
			this.jdbc.update("INSERT INTO ran (name, task_id, attempt, started_at) VALUES (?, ?, ?, ?)", name,
					context.id(), context.attempt(), started);
		}

	}

}
