package dev.taskqueue.internal.producer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.taskqueue.BatchInfo;
import dev.taskqueue.BatchResult;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The edges of task batches: sweeps racing on one done batch, a dead task retried and a waiting one cancelled while
 * their batch is open, requests a batch refuses.
 */
class BatchEdgeCasesIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	@BeforeEach
	void clear() {
		TaskBatchIntegrationTests.runs.clear();
		TaskBatchIntegrationTests.thens.clear();
		TaskBatchIntegrationTests.dying.set(false);
	}

	@Test
	void sweepsRacingOnADoneBatchEnqueueItsThenTaskOnce() throws Exception {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			BatchResult batch = producer.getBean(TaskQueue.class)
				.enqueueBatch(List.of(TaskRequest.of("nobody", 1), TaskRequest.of("nobody", 2)),
						TaskRequest.of("after", 3));
			JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
			jdbc.update("DELETE FROM taskqueue_task WHERE batch_id = ?", batch.id()); // as completions would
			BatchRepository batches = producer.getBean(BatchRepository.class);
			TransactionTemplate transaction = new TransactionTemplate(
					producer.getBean(DataSourceTransactionManager.class));
			CyclicBarrier start = new CyclicBarrier(4);
			ExecutorService sweepers = Executors.newFixedThreadPool(4);
			try {
				List<Future<List<UUID>>> sweeps = new ArrayList<>();
				for (int i = 0; i < 4; i++) {
					sweeps.add(sweepers.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return transaction.execute((status) -> batches.finishDone(100));
					}));
				}
				List<UUID> enqueued = new ArrayList<>();
				for (Future<List<UUID>> sweep : sweeps) {
					enqueued.addAll(sweep.get(30, TimeUnit.SECONDS));
				}
				assertThat(enqueued).containsExactly(batch.thenTaskId());
			}
			finally {
				sweepers.shutdownNow();
			}
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = 'after'", Integer.class))
				.isEqualTo(1);
			assertThat(jdbc.queryForObject("SELECT headers ->> 'taskqueue-batch-total' FROM taskqueue_task "
					+ "WHERE id = ?", String.class, batch.thenTaskId())).isEqualTo("2");
		}
	}

	@Test
	void aDeadTaskRetriedWhileItsBatchIsOpenIsWaitedForAndACancelledOneCountsAsCompleted() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		try (ConfigurableApplicationContext context = TestApplications.start(url,
				List.of(TaskBatchIntegrationTests.Config.class))) {
			TaskBatchIntegrationTests.dying.set(true);
			BatchResult batch = context.getBean(TaskQueue.class)
				.enqueueBatch(List.of(TaskRequest.of("flaky", Map.of("n", 1)), TaskRequest.of("nobody", 2)),
						TaskRequest.of("after", 3));
			UUID flaky = batch.taskIds().get(0);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			Await.until("the flaky task is dead", WAIT, () -> operations.deadTask(flaky).isPresent());
			assertThat(operations.batch(batch.id()).orElseThrow().dead()).isOne();
			TaskBatchIntegrationTests.dying.set(false);
			assertThat(operations.retryDead(flaky)).isTrue();
			Await.until("the retried task completed", WAIT,
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class,
							flaky) == 0);
			assertThat(operations.batch(batch.id()).orElseThrow())
				.extracting(TaskQueueOperations.BatchProgress::completed, TaskQueueOperations.BatchProgress::dead,
						TaskQueueOperations.BatchProgress::remaining, TaskQueueOperations.BatchProgress::finished)
				.containsExactly(1L, 0L, 1L, false);
			assertThat(TaskBatchIntegrationTests.thens).isEmpty();
			assertThat(operations.cancel(batch.taskIds().get(1))).isTrue();
			Await.until("the then task ran", WAIT, () -> !TaskBatchIntegrationTests.thens.isEmpty());
			assertThat(TaskBatchIntegrationTests.thens.get(0).batch()).isEqualTo(new BatchInfo(batch.id(), 2, 2, 0));
		}
	}

	@Test
	void uniqueKeysAndNullsAreRefusedNamingTheRequest() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> taskQueue.enqueueBatch(
						List.of(TaskRequest.of("q", 1), TaskRequest.of("q", 2).withUniqueKey("k")),
						TaskRequest.of("after", 1)))
				.withMessage("tasks[1] has unique key 'k'; the tasks of a batch and its then task cannot have one");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> taskQueue.enqueueBatch(List.of(TaskRequest.of("q", 1)),
						TaskRequest.of("after", 1).withOrderingKey("o")))
				.withMessage("then has ordering key 'o'; the tasks of a batch and its then task cannot have one");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> taskQueue.enqueueBatch(List.of(TaskRequest.of("q", 1)), null))
				.withMessage("then must not be null");
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueueBatch(null, TaskRequest.of("q", 1)))
				.withMessage("tasks must not be null");
			assertThat(new JdbcTemplate(new DriverManagerDataSource(url))
				.queryForObject("SELECT count(*) FROM taskqueue_batch", Integer.class)).isZero();
		}
	}

}
