package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs of a key in group commit: the tasks that follow a handed-off task run after it in its group, unclaimed, in
 * order; one that fails is claimed in the group's transaction, so its failure counts as an attempt and it holds its
 * key while it waits to retry, as a claimed head would.
 */
class KeyRunsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void aTaskThatFailsInItsKeysRunCountsItsAttemptAndHoldsItsKeyUntilItsRetry() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Handlers.class), "taskqueue.queues.runs.group-commit-size=10",
				"taskqueue.queues.runs.concurrency=1", "taskqueue.queues.runs.max-attempts=3",
				"taskqueue.retry.backoff.initial-delay=200ms", "taskqueue.retry.backoff.jitter=0")) {
			Handlers handlers = context.getBean(Handlers.class);
			List<Integer> steps = IntStream.rangeClosed(1, 40).boxed().toList();
			context.getBean(TaskQueue.class)
				.enqueueAll(steps.stream().map((step) -> TaskRequest.of("runs", step).withOrderingKey("k")).toList());
			Await.until("the key's tasks ran", WAIT, () -> handlers.completed.size() == steps.size());
			assertThat(handlers.completed).containsExactlyElementsOf(steps);
			// 7 failed twice (attempts 1 and 2), 23 once; no task after them started before they succeeded.
			assertThat(handlers.runs).containsSubsequence("6#1", "7#1", "7#2", "7#3", "8#1");
			assertThat(handlers.runs).containsSubsequence("22#1", "23#1", "23#2", "24#1");
			assertThat(handlers.runs).hasSize(steps.size() + 3);
			// Most ran unclaimed, after the task before them in their group: the runs of the key were used.
			assertThat(handlers.held.get()).isGreaterThan(steps.size() / 2);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			Await.until("the table is empty", WAIT,
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
		}
	}

	@Test
	void aTaskThatHangsInItsKeysRunRunsAgainClaimedWhereItsTimeoutCounts() {
		String url = TestDatabase.createDatabase();
		// Not the application's pool: ending a given-up group's backend is what this test makes happen.
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		try (ConfigurableApplicationContext context = TestApplications.start(url,
				List.of(Handlers.class), "taskqueue.queues.runs.group-commit-size=10",
				"taskqueue.queues.runs.concurrency=1", "taskqueue.queues.runs.max-attempts=2",
				"taskqueue.queues.runs.timeout=500ms",
				// The run must reach task 3 however slow a loaded machine makes tasks 1 and 2.
				"taskqueue.worker.group-commit-max-delay=10s")) {
			Handlers handlers = context.getBean(Handlers.class);
			handlers.hang = 3;
			context.getBean(TaskQueue.class)
				.enqueueAll(IntStream.rangeClosed(1, 5).mapToObj((step) -> TaskRequest.of("runs", step)
					.withOrderingKey("k")).toList());
			Await.until("the table is empty", WAIT,
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			// Given up in the run (not counted, held again), then claimed after its head, where its timeouts count:
			// with max-attempts 2 it goes to the dead letters after two more, and its key goes on.
			assertThat(jdbc.queryForList("SELECT payload::text FROM taskqueue_dead_task", String.class))
				.containsExactly("3");
			assertThat(handlers.completed.stream().distinct().toList()).containsExactly(1, 2, 4, 5);
			assertThat(handlers.runs.stream().filter("3#1"::equals)).hasSize(2);
			assertThat(handlers.runs.stream().filter("3#2"::equals)).hasSize(1);
		}
	}

	static class Handlers {

		volatile int hang;


		final List<String> runs = Collections.synchronizedList(new ArrayList<>());

		final List<Integer> completed = Collections.synchronizedList(new ArrayList<>());

		/** How many ran while their row was still held: a task of a run, not claimed. */
		final AtomicInteger held = new AtomicInteger();

		private final JdbcTemplate jdbc;

		Handlers(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "runs")
		void run(Integer step, TaskContext context) {
			this.runs.add(step + "#" + context.attempt());
			if (step == this.hang) {
				try {
					Thread.sleep(10_000); // until the timeout interrupts it
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				throw new IllegalStateException("step " + step + " hung");
			}
			if (Boolean.TRUE.equals(this.jdbc.queryForObject("SELECT claimed_by = '00000000-0000-0000-0000-000000000000' "
					+ "FROM taskqueue_task WHERE id = ?", Boolean.class, context.id()))) {
				this.held.incrementAndGet();
			}
			if ((step == 7 && context.attempt() < 3) || (step == 23 && context.attempt() < 2)) {
				throw new IllegalStateException("step " + step + " fails on attempt " + context.attempt());
			}
			this.completed.add(step);
		}

	}

}
