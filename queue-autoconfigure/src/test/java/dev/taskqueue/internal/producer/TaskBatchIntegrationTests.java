package dev.taskqueue.internal.producer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.BatchInfo;
import dev.taskqueue.BatchResult;
import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.BatchProgress;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.internal.operations.OperationsBeans;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code TaskQueue.enqueueBatch}: the {@code then} task follows every task of the batch exactly once, with the
 * right counts, in every completion mode, across instances and when the last tasks finish at the same moment.
 */
class TaskBatchIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	static final Map<UUID, AtomicInteger> runs = new ConcurrentHashMap<>();

	static final List<TaskContext> thens = new CopyOnWriteArrayList<>();

	static volatile CyclicBarrier together = new CyclicBarrier(1);

	static final AtomicBoolean dying = new AtomicBoolean();

	@BeforeEach
	void clear() {
		runs.clear();
		thens.clear();
	}

	@Test
	void aBatchAcrossThreeInstancesAndEveryCompletionModeIsFollowedOnceWithTheRightCounts() {
		String url = TestDatabase.createDatabase();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				instances.add(TestApplications.start(url, List.of(Config.class),
						"taskqueue.queues.grouped.group-commit-size=8"));
			}
			List<TaskRequest> requests = new ArrayList<>();
			int dying = 0;
			for (int i = 0; i < 600; i++) {
				boolean die = i % 50 == 0;
				dying += die ? 1 : 0;
				requests.add(TaskRequest.of(List.of("transactional", "grouped", "batched").get(i % 3),
						Map.of("n", i, "die", die)));
			}
			BatchResult batch = instances.get(0)
				.getBean(TaskQueue.class)
				.enqueueBatch(requests, TaskRequest.of("after", Map.of("report", "x")));
			assertThat(batch.taskIds()).hasSize(600).doesNotHaveDuplicates();
			Await.until("the then task ran", WAIT, () -> !thens.isEmpty());
			assertThat(runs).hasSize(600).allSatisfy((id, count) -> assertThat(count).hasValue(1));
			for (ConfigurableApplicationContext instance : instances) {
				assertThat(OperationsBeans.sweep(instance)).isEmpty();
			}
			assertThat(thens).hasSize(1);
			TaskContext then = thens.get(0);
			assertThat(then.id()).isEqualTo(batch.thenTaskId());
			assertThat(then.batch()).isEqualTo(new BatchInfo(batch.id(), 600, 600 - dying, dying));
			BatchProgress progress = instances.get(1).getBean(TaskQueueOperations.class).batch(batch.id()).orElseThrow();
			assertThat(progress.finished()).isTrue();
			assertThat(progress.total()).isEqualTo(600);
			assertThat(progress.completed()).isEqualTo(600 - dying);
			assertThat(progress.dead()).isEqualTo(dying);
			assertThat(progress.remaining()).isZero();
			JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE batch_id = ?",
					Integer.class, batch.id())).isEqualTo(dying);
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Test
	void theLastTwoTasksCompletingAtOnceOnTwoInstancesGiveOneThenTask() {
		String url = TestDatabase.createDatabase();
		together = new CyclicBarrier(2);
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 2; i++) {
				instances.add(TestApplications.start(url, List.of(Config.class), "taskqueue.queues.pair.concurrency=1",
						"taskqueue.worker.max-prefetch=0")); // so that each instance takes one of the two
			}
			TaskQueue taskQueue = instances.get(0).getBean(TaskQueue.class);
			List<BatchResult> batches = new ArrayList<>();
			for (int b = 0; b < 5; b++) {
				batches.add(taskQueue.enqueueBatch(
						List.of(TaskRequest.of("pair", Map.of("n", 1)), TaskRequest.of("pair", Map.of("n", 2))),
						TaskRequest.of("after", Map.of("batch", b))));
				int expected = b + 1;
				Await.until("then task " + expected + " ran", WAIT, () -> thens.size() >= expected);
			}
			for (ConfigurableApplicationContext instance : instances) {
				assertThat(OperationsBeans.sweep(instance)).isEmpty();
			}
			assertThat(thens).hasSize(5);
			assertThat(thens).extracting(TaskContext::batch)
				.extracting(BatchInfo::id)
				.containsExactlyInAnyOrderElementsOf(batches.stream().map(BatchResult::id).toList());
			assertThat(thens).extracting(TaskContext::batch).allSatisfy((info) -> {
				assertThat(info.total()).isEqualTo(2);
				assertThat(info.completed()).isEqualTo(2);
			});
			assertThat(runs).hasSize(10).allSatisfy((id, count) -> assertThat(count).hasValue(1));
			assertThat(new JdbcTemplate(new DriverManagerDataSource(url))
				.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
		}
		finally {
			together = new CyclicBarrier(1);
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Test
	void aRolledBackBatchLeavesNothing() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(DataSourceTransactionManager.class));
			BatchResult batch = transaction.execute((status) -> {
				status.setRollbackOnly();
				return taskQueue.enqueueBatch(List.of(TaskRequest.of("transactional", Map.of("n", 1))),
						TaskRequest.of("after", 1));
			});
			JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_batch", Integer.class)).isZero();
			assertThat(context.getBean(TaskQueueOperations.class).batch(batch.id())).isEmpty();
			assertThat(OperationsBeans.sweep(context)).isEmpty();
			assertThat(thens).isEmpty();
			assertThat(runs).isEmpty();
		}
	}

	@Test
	void anEmptyBatchIsDoneAtOnceAndItsThenTaskSeesZeroes() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			BatchResult batch = context.getBean(TaskQueue.class).enqueueBatch(List.of(), TaskRequest.of("after", 1));
			assertThat(batch.taskIds()).isEmpty();
			Await.until("the then task ran", WAIT, () -> !thens.isEmpty());
			assertThat(thens.get(0).batch()).isEqualTo(new BatchInfo(batch.id(), 0, 0, 0));
		}
	}

	@Test
	void progressIsReadWhileTheBatchRunsAndAfter() {
		String url = TestDatabase.createDatabase();
		BatchResult batch;
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				requests.add(TaskRequest.of("transactional", Map.of("n", i, "die", i == 3)));
			}
			batch = producer.getBean(TaskQueue.class).enqueueBatch(requests, TaskRequest.of("after", 1));
			BatchProgress waiting = producer.getBean(TaskQueueOperations.class).batch(batch.id()).orElseThrow();
			assertThat(waiting).extracting(BatchProgress::total, BatchProgress::completed, BatchProgress::dead,
					BatchProgress::remaining, BatchProgress::finished).containsExactly(5, 0L, 0L, 5L, false);
			assertThat(producer.getBean(TaskQueueOperations.class).batch(UUID.randomUUID())).isEmpty();
		}
		try (ConfigurableApplicationContext worker = TestApplications.start(url, List.of(Config.class))) {
			Await.until("the then task ran", WAIT, () -> !thens.isEmpty());
			BatchProgress done = worker.getBean(TaskQueueOperations.class).batch(batch.id()).orElseThrow();
			assertThat(done).extracting(BatchProgress::total, BatchProgress::completed, BatchProgress::dead,
					BatchProgress::remaining, BatchProgress::finished).containsExactly(5, 4L, 1L, 0L, true);
			assertThat(thens.get(0).batch()).isEqualTo(new BatchInfo(batch.id(), 5, 4, 1));
		}
	}

	static void work(Map<String, Object> payload, TaskContext context) {
		runs.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
		if (Boolean.TRUE.equals(payload.get("die"))) {
			throw new NonRetryableTaskException("task " + payload.get("n") + " dies on purpose");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	static class Handlers {

		@TaskHandler(queue = "transactional")
		void transactional(Map<String, Object> payload, TaskContext context) {
			work(payload, context);
		}

		@TaskHandler(queue = "grouped")
		void grouped(Map<String, Object> payload, TaskContext context) {
			work(payload, context);
		}

		@TaskHandler(queue = "batched", completion = TaskHandler.Completion.BATCHED)
		void batched(Map<String, Object> payload, TaskContext context) {
			work(payload, context);
		}

		@TaskHandler(queue = "pair")
		void pair(Map<String, Object> payload, TaskContext context) throws Exception {
			together.await(20, TimeUnit.SECONDS);
			work(payload, context);
		}

		@TaskHandler(queue = "flaky")
		void flaky(Map<String, Object> payload, TaskContext context) {
			runs.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
			if (dying.get()) {
				throw new NonRetryableTaskException("flaky dies while told to");
			}
		}

		@TaskHandler(queue = "after")
		void after(Object payload, TaskContext context) {
			thens.add(context);
		}

	}

}
