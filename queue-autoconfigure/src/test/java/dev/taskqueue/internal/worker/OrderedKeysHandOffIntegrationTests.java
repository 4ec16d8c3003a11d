package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskHandler.Completion;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completion of a task with an ordering key hands the key's next task to the completing worker (claimed in the
 * same statement), but never to a paused queue: in every completion mode, a key's task that ends while its queue is
 * paused leaves the next one waiting, unclaimed, until the queue is resumed.
 */
class OrderedKeysHandOffIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@ParameterizedTest
	@ValueSource(strings = { "h-transactional", "h-grouped", "h-batched" })
	void aTaskEndingWhileItsQueueIsPausedHandsNothingOff(String queue) throws Exception {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Handlers.class), "taskqueue.worker.heartbeat-interval=1m", "taskqueue.worker.session-timeout=5m",
				"taskqueue.queues.h-grouped.group-commit-size=5")) {
			Handlers handlers = context.getBean(Handlers.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			context.getBean(TaskQueue.class).enqueueAll(List.of(TaskRequest.of(queue, 1).withOrderingKey("k"),
					TaskRequest.of(queue, 2).withOrderingKey("k"), TaskRequest.of(queue, 3).withOrderingKey("k")));
			assertThat(handlers.firstStarted.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

			context.getBean(TaskQueueOperations.class).pause(queue);
			handlers.releaseFirst.countDown();
			Await.until(() -> "the first task's completion is written (tasks: " + jdbc.queryForList(
					"SELECT claimed_by, attempt, ordering_seq FROM taskqueue_task") + ", started: " + handlers.started
					+ ")", WAIT, () -> count(jdbc, "id IS NOT NULL") == 2);
			Thread.sleep(500); // claim polls and flushes: a hand-off or a claim would have started the second task
			assertThat(handlers.started).containsExactly(1);
			assertThat(count(jdbc, "claimed_by IS NULL")).as("the next task: the key's head, unclaimed").isOne();
			assertThat(count(jdbc, "claimed_by = '00000000-0000-0000-0000-000000000000'")).as("held").isOne();

			context.getBean(TaskQueueOperations.class).resume(queue);
			Await.until("the key's other tasks run once resumed", WAIT, () -> handlers.started.size() == 3);
			assertThat(handlers.started).containsExactly(1, 2, 3);
			Await.until("the table is empty", WAIT, () -> count(jdbc, "id IS NOT NULL") == 0);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "h-transactional", "h-grouped", "h-batched" })
	void aKeysTasksFollowEachOtherWithoutWaitingForThePollInterval(String queue) {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Handlers.class), "taskqueue.worker.heartbeat-interval=1m", "taskqueue.worker.session-timeout=5m",
				"taskqueue.worker.poll-interval=1m",
				"taskqueue.queues.h-grouped.group-commit-size=5")) {
			Handlers handlers = context.getBean(Handlers.class);
			List<Integer> steps = IntStream.rangeClosed(2, 201).boxed().toList();
			context.getBean(TaskQueue.class)
				.enqueueAll(steps.stream().map((step) -> TaskRequest.of(queue, step).withOrderingKey("k")).toList());
			// The first task's NOTIFY may come before the worker listens: the test starts it, not a poll a minute on.
			context.getBean(TaskWorker.class).wakeUp();
			// Each next task is handed off by the claim the completion wakes, not left to a poll or the sweep.
			Await.until(() -> "the key's 200 tasks ran (" + handlers.started.size() + " did)", WAIT,
					() -> handlers.started.size() == steps.size());
			assertThat(handlers.started).containsExactlyElementsOf(steps);
		}
	}

	private static int count(JdbcTemplate jdbc, String where) {
		Integer count = jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE " + where, Integer.class);
		return (count != null) ? count : -1;
	}

	static class Handlers {

		final List<Integer> started = Collections.synchronizedList(new ArrayList<>());

		final CountDownLatch firstStarted = new CountDownLatch(1);

		final CountDownLatch releaseFirst = new CountDownLatch(1);

		@TaskHandler(queue = "h-transactional")
		void transactional(Integer step) throws InterruptedException {
			run(step);
		}

		@TaskHandler(queue = "h-grouped")
		void grouped(Integer step) throws InterruptedException {
			run(step);
		}

		@TaskHandler(queue = "h-batched", completion = Completion.BATCHED)
		void batched(Integer step) throws InterruptedException {
			run(step);
		}

		private void run(Integer step) throws InterruptedException {
			this.started.add(step);
			if (step == 1) {
				this.firstStarted.countDown();
				this.releaseFirst.await();
			}
		}

	}

}
