package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.BatchResult;
import dev.taskqueue.DeadTask;
import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskProgress;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.internal.operations.OperationsBeans;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code TaskContext.progress} and results: progress shows while the task runs and is written at most once per
 * write interval whatever the call rate (counted in PostgreSQL's own statistics of the progress table, read once
 * every backend of the application has ended and flushed them); results commit with their task's completion in
 * every completion mode, and a failed or cancelled attempt keeps none.
 */
class ProgressAndResultsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void progressShowsWhileTheTaskRunsAndIsWrittenAtMostOncePerSecondWhateverTheCallRate() throws Exception {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = jdbc(url);
		UUID id;
		Duration reporting;
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			Handlers handlers = context.getBean(Handlers.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			id = context.getBean(TaskQueue.class).enqueue("progress", 2_000);
			assertThat(handlers.firstReport.await(30, TimeUnit.SECONDS)).isTrue();
			// Shown while the handler, whose transaction has written nothing yet, still reports: it reports until
			// released, so a loaded machine's slow writer finds it still running (it once stopped after a fixed 2 s).
			Await.until("the progress shows", WAIT, () -> operations.progress(id).isPresent());
			assertThat(handlers.progressDone.getCount()).as("the handler still runs").isOne();
			TaskProgress shown = operations.progress(id).orElseThrow();
			assertThat(shown.percent()).isBetween(0, 100);
			assertThat(shown.message()).startsWith("step ");
			handlers.releaseProgress.countDown();
			assertThat(handlers.progressDone.await(30, TimeUnit.SECONDS)).isTrue();
			reporting = handlers.reportedFor;
			Await.until("the task completed and its progress is deleted", WAIT,
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0
							&& count(jdbc, "SELECT count(*) FROM taskqueue_progress") == 0);
			assertThat(operations.progress(id)).isEmpty();
			assertThat(handlers.progressCalls.get()).isGreaterThanOrEqualTo(1_000);
		}
		// Every backend of the application has ended, and a backend flushes its statistics before it leaves
		// pg_stat_activity: the counts below are complete.
		Await.until("the application's connections are closed", WAIT, () -> count(jdbc,
				"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()") == 0);
		Map<String, Object> stats = jdbc.queryForMap("SELECT n_tup_ins + n_tup_upd AS writes, n_tup_del AS deletes "
				+ "FROM pg_stat_user_tables WHERE relname = 'taskqueue_progress'");
		// At least 1,000 reports over at least 2 s, written once a second: each write takes a report made since the
		// one before, a second or more earlier, so the writes number at most one more than the whole seconds the
		// reports took (3 for exactly 2 s, as on an idle machine).
		long mostWrites = (reporting.toNanos() + Duration.ofSeconds(1).toNanos() - 1) / Duration.ofSeconds(1).toNanos()
				+ 1;
		assertThat(((Number) stats.get("writes")).longValue()).isBetween(1L, mostWrites);
		assertThat(((Number) stats.get("deletes")).longValue()).isOne();
	}

	@Test
	void aResultIsKeptWithTheCompletionInEveryModeAndAHandlerWithoutOneWritesNone() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = jdbc(url);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				"taskqueue.queues.grouped.group-commit-size=5")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			List<UUID> voids = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				voids.add(taskQueue.enqueue("void", "nothing " + i));
			}
			UUID returned = taskQueue.enqueue("returns", "abcd");
			UUID given = taskQueue.enqueue("gives", "abc");
			List<UUID> batched = new ArrayList<>();
			List<UUID> grouped = new ArrayList<>();
			for (int i = 0; i < 30; i++) {
				batched.add(taskQueue.enqueue("batched", i));
				grouped.add(taskQueue.enqueue("grouped", i));
			}
			Await.until("every task completed", WAIT, () -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			assertThat(operations.result(returned, Total.class)).contains(new Total("abcd", 4));
			assertThat(operations.result(given, String.class)).contains("given abc");
			for (int i = 0; i < 30; i++) {
				assertThat(operations.result(batched.get(i), Integer.class)).contains(i * 2);
				assertThat(operations.result(grouped.get(i), Integer.class)).contains(i * 3);
			}
			voids.forEach((id) -> assertThat(operations.result(id, Object.class)).isEmpty());
			// One row for each task that gave a result, none for the 20 that gave none.
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_result")).isEqualTo(62);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_result WHERE queue = 'void'")).isZero();
			// History is off: results are kept all the same, for the history's retention.
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_history")).isZero();
		}
	}

	@Test
	void aFailedAttemptKeepsNoResultAndTheRetryKeepsItsOwn() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = jdbc(url);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			UUID dies = taskQueue.enqueue("fails", "die");
			UUID retried = taskQueue.enqueue("fails", "retry");
			Await.until("both ended", WAIT, () -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(operations.deadTask(dies)).isPresent();
			assertThat(operations.result(dies, String.class)).isEmpty();
			assertThat(operations.result(retried, String.class)).contains("attempt 2");
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_result")).isOne();
		}
	}

	@Test
	void aResultIsNotKeptWhenItsTransactionRollsBackAfterTheHandlerReturned() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = jdbc(url);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			UUID id = context.getBean(TaskQueue.class).enqueue("rolls-back", "x");
			Await.until("it ended", WAIT, () -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(operations.deadTask(id)).isPresent();
			assertThat(operations.result(id, String.class)).isEmpty();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_result")).isZero();
		}
	}

	@Test
	void aResultLargerThanTheLimitSendsItsTaskToTheDeadLettersAndKeepsNothing() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = jdbc(url);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				"taskqueue.results.max-size=100B")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			UUID large = taskQueue.enqueue("gives", "x".repeat(200));
			UUID small = taskQueue.enqueue("gives", "x".repeat(10));
			Await.until("both ended", WAIT, () -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			Optional<DeadTask> dead = operations.deadTask(large);
			assertThat(dead).isPresent();
			assertThat(dead.get().attempts()).isOne();
			assertThat(dead.get().error()).contains("more than 100 bytes of JSON, taskqueue.results.max-size");
			assertThat(operations.result(large, String.class)).isEmpty();
			assertThat(operations.result(small, String.class)).contains("given " + "x".repeat(10));
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_result")).isOne();
		}
	}

	@Test
	void aBatchsThenTaskReadsItsPartsResults() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = jdbc(url);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class))) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			List<TaskRequest> parts = new ArrayList<>();
			for (int i = 1; i <= 600; i++) { // more than one page of results
				parts.add(TaskRequest.of("square", i));
			}
			BatchResult batch = taskQueue.enqueueBatch(parts, TaskRequest.of("sum", "squares"));
			Await.until("the sum ran", WAIT, () -> operations.result(batch.thenTaskId(), Long.class).isPresent());
			long expected = 600L * 601 * 1201 / 6;
			assertThat(operations.result(batch.thenTaskId(), Long.class)).contains(expected);
			AtomicInteger read = new AtomicInteger();
			assertThat(operations.batchResults(batch.id(), Integer.class, (id, square) -> read.incrementAndGet()))
				.isEqualTo(600);
			assertThat(read).hasValue(600);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_result WHERE batch_id = ?", batch.id()))
				.isEqualTo(600);
		}
	}

	@Test
	void resultsAreDeletedAfterTheHistorysRetention() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = jdbc(url);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				"taskqueue.retention.history=1ms")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			for (int i = 0; i < 3; i++) {
				taskQueue.enqueue("returns", "r" + i);
			}
			Await.until("every task completed", WAIT, () -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_result")).isEqualTo(3);
			assertThat(OperationsBeans.prune(context)).isEqualTo(3);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_result")).isZero();
		}
	}

	@Test
	void aTaskCancelledWhileItRunsKeepsNoResultInAnyModeAndItsProgressIsDeleted() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = jdbc(url);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				"taskqueue.queues.cancelled-grouped.group-commit-size=5", "taskqueue.history.enabled=true")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			List<UUID> ids = List.of(taskQueue.enqueue("cancelled", "t"),
					taskQueue.enqueue("cancelled-grouped", "g"), taskQueue.enqueue("cancelled-batched", "b"));
			for (UUID id : ids) {
				Await.until("the progress of " + id + " shows", WAIT, () -> operations.progress(id).isPresent());
			}
			for (UUID id : ids) {
				assertThat(operations.cancel(id, "progress test")).isTrue();
			}
			// Each handler returns a result once it sees its cancel; its attempt ends as cancelled, which deletes
			// its progress.
			Await.until("every attempt ended and its progress is deleted", WAIT,
					() -> context.getBean(Handlers.class).cancelledReturns.get() == 3
							&& count(jdbc, "SELECT count(*) FROM taskqueue_progress") == 0);
			ids.forEach((id) -> assertThat(operations.result(id, String.class)).isEmpty());
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_result")).isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_task")).isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_history WHERE outcome = 'cancelled'")).isEqualTo(3);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_history WHERE outcome = 'completed'")).isZero();
		}
	}

	private static JdbcTemplate jdbc(String url) {
		return new JdbcTemplate(new DriverManagerDataSource(url));
	}

	private static int count(JdbcTemplate jdbc, String sql, Object... args) {
		Integer count = jdbc.queryForObject(sql, Integer.class, args);
		return (count != null) ? count : 0;
	}

	record Total(String text, int length) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Handlers handlers(TaskQueueOperations operations) {
			return new Handlers(operations);
		}

	}

	static class Handlers {

		final CountDownLatch firstReport = new CountDownLatch(1);

		final CountDownLatch releaseProgress = new CountDownLatch(1);

		final CountDownLatch progressDone = new CountDownLatch(1);

		/** From the first report of the progress handler to its last. */
		volatile Duration reportedFor = Duration.ZERO;

		final AtomicInteger progressCalls = new AtomicInteger();

		final AtomicInteger cancelledReturns = new AtomicInteger();

		private final TaskQueueOperations operations;

		Handlers(TaskQueueOperations operations) {
			this.operations = operations;
		}

		/**
		 * Reports progress about once a millisecond: for {@code millis} ms and 1,000 reports at least, and until
		 * {@link #releaseProgress} is counted down.
		 */
		@TaskHandler(queue = "progress")
		void progress(int millis, TaskContext context) throws InterruptedException {
			long start = System.nanoTime();
			long end = start + TimeUnit.MILLISECONDS.toNanos(millis);
			int i = 0;
			long last = start;
			while (System.nanoTime() < end || i < 1_000 || this.releaseProgress.getCount() > 0) {
				context.progress(Math.min(100, i / 20), "step " + i);
				last = System.nanoTime();
				this.progressCalls.incrementAndGet();
				this.firstReport.countDown();
				i++;
				Thread.sleep(1);
			}
			this.reportedFor = Duration.ofNanos(last - start);
			this.progressDone.countDown();
		}

		@TaskHandler(queue = "void")
		void nothing(String text) {
		}

		@TaskHandler(queue = "returns")
		Total returns(String text) {
			return new Total(text, text.length());
		}

		@TaskHandler(queue = "gives")
		void gives(String text, TaskContext context) {
			context.result("given " + text);
		}

		@TaskHandler(queue = "batched", completion = TaskHandler.Completion.BATCHED)
		int batched(int n) {
			return n * 2;
		}

		@TaskHandler(queue = "grouped")
		int grouped(int n) {
			return n * 3;
		}

		@TaskHandler(queue = "fails")
		String fails(String what, TaskContext context) {
			context.result("attempt " + context.attempt());
			if (what.equals("die")) {
				throw new NonRetryableTaskException("dies with a result given");
			}
			if (context.attempt() == 1) {
				throw new IllegalStateException("fails once with a result given");
			}
			return "attempt " + context.attempt();
		}

		/** Returns a result, then its transaction fails at commit, after the result was written in it. */
		@TaskHandler(queue = "rolls-back", maxAttempts = 1)
		String rollsBack(String what) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void beforeCommit(boolean readOnly) {
					throw new IllegalStateException("the transaction fails at commit");
				}

			});
			return "never kept";
		}

		@TaskHandler(queue = "square")
		int square(int n) {
			return n * n;
		}

		@TaskHandler(queue = "cancelled")
		String cancelled(String what, TaskContext context) {
			return untilCancelled(context);
		}

		@TaskHandler(queue = "cancelled-grouped")
		String cancelledGrouped(String what, TaskContext context) {
			return untilCancelled(context);
		}

		@TaskHandler(queue = "cancelled-batched", completion = TaskHandler.Completion.BATCHED)
		String cancelledBatched(String what, TaskContext context) {
			return untilCancelled(context);
		}

		/** Reports progress and gives a result until its task is cancelled, then returns a result all the same. */
		private String untilCancelled(TaskContext context) {
			context.result("given before the cancel");
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (!context.isCancelled() && System.nanoTime() < end) {
				context.progress(50, "waiting for the cancel");
				try {
					Thread.sleep(10);
				}
				catch (InterruptedException ex) {
					// the cancel's interrupt: the loop asks the context
				}
			}
			this.cancelledReturns.incrementAndGet();
			return "returned after the cancel";
		}

		@TaskHandler(queue = "sum")
		long sum(String what, TaskContext context) {
			long[] sum = { 0 };
			this.operations.batchResults(context.batch().id(), Integer.class, (id, square) -> sum[0] += square);
			return sum[0];
		}

	}

}
