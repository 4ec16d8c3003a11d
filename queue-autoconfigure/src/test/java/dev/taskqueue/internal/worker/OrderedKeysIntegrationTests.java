package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskHandler.Completion;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances share tasks with ordering keys, in each completion mode: every key's tasks start in enqueue
 * order and never overlap, while keys run alongside each other; a retry holds its key, a dead letter releases it.
 */
class OrderedKeysIntegrationTests {

	private static final int KEYS = 20;

	private static final int PER_KEY = 25;

	/** Start order per queue and key: the index each task was enqueued with. */
	static final Map<String, List<Integer>> starts = new ConcurrentHashMap<>();

	static final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

	static final AtomicInteger overlaps = new AtomicInteger();

	static final AtomicInteger keysAtOnce = new AtomicInteger();

	private static final AtomicInteger runningKeys = new AtomicInteger();

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static JdbcTemplate jdbc;

	private static TaskQueue taskQueue;

	@BeforeAll
	static void start() {
		String url = TestDatabase.createDatabase();
		for (int i = 0; i < 3; i++) {
			instances.add(TestApplications.start(url, List.of(Handlers.class), "taskqueue.worker.concurrency=4",
					"spring.datasource.hikari.maximum-pool-size=10", "taskqueue.queues.o-grouped.group-commit-size=5",
					"taskqueue.queues.o-retry.max-attempts=5"));
		}
		jdbc = instances.get(0).getBean(JdbcTemplate.class);
		taskQueue = instances.get(0).getBean(TaskQueue.class);
	}

	@AfterAll
	static void stop() {
		instances.forEach(ConfigurableApplicationContext::close);
	}

	@BeforeEach
	void reset() {
		starts.clear();
		running.clear();
		overlaps.set(0);
		keysAtOnce.set(0);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "o-transactional", "o-grouped", "o-batched" })
	void eachKeyRunsOneAtATimeInEnqueueOrderAcrossThreeInstances(String queue) {
		List<TaskRequest> requests = new ArrayList<>();
		for (int index = 0; index < PER_KEY; index++) {
			for (int key = 0; key < KEYS; key++) {
				requests.add(TaskRequest.of(queue, new Step("k" + key, index)).withOrderingKey("k" + key));
			}
		}
		int half = requests.size() / 2;
		for (int from = 0; from < half; from += 100) { // half with enqueueAll, in lists that repeat every key
			taskQueue.enqueueAll(requests.subList(from, Math.min(half, from + 100)));
		}
		requests.subList(half, requests.size()).forEach(taskQueue::enqueue); // half one by one
		Await.until("every task ran", Duration.ofSeconds(120), () -> started(queue) == KEYS * PER_KEY
				&& jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
		List<Integer> inOrder = IntStream.range(0, PER_KEY).boxed().toList();
		for (int key = 0; key < KEYS; key++) {
			assertThat(starts.get(queue + "/k" + key)).as("start order of key k" + key).isEqualTo(inOrder);
		}
		assertThat(overlaps).as("tasks of one key that ran at once").hasValue(0);
		assertThat(keysAtOnce.get()).as("most keys running at once").isGreaterThan(1);
		assertThat(jdbc.queryForList("SELECT error FROM taskqueue_dead_task WHERE queue = ?", String.class, queue))
			.isEmpty();
	}

	@Test
	void aRetryHoldsItsKeyAndADeadLetterReleasesIt() {
		for (int index = 0; index < 4; index++) {
			taskQueue.enqueue(TaskRequest.of("o-retry", new Step("retried", index)).withOrderingKey("retried"));
			taskQueue.enqueue(TaskRequest.of("o-retry", new Step("dead", index)).withOrderingKey("dead"));
		}
		Await.until("every task ran", Duration.ofSeconds(60),
				() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
		assertThat(starts.get("o-retry/retried")).as("task 1 fails twice, then succeeds")
			.containsExactly(0, 1, 1, 1, 2, 3);
		assertThat(starts.get("o-retry/dead")).as("task 1 goes to the dead letters").containsExactly(0, 1, 2, 3);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = 'o-retry'",
				Integer.class)).isOne();
		assertThat(overlaps).hasValue(0);
	}

	private static int started(String queue) {
		return starts.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().startsWith(queue + "/"))
			.mapToInt((entry) -> entry.getValue().size())
			.sum();
	}

	record Step(String key, int index) {
	}

	static class Handlers {

		@TaskHandler(queue = "o-transactional")
		void transactional(Step step, TaskContext context) {
			run(context.queue(), step);
		}

		@TaskHandler(queue = "o-grouped")
		void grouped(Step step, TaskContext context) {
			run(context.queue(), step);
		}

		@TaskHandler(queue = "o-batched", completion = Completion.BATCHED)
		void batched(Step step, TaskContext context) {
			run(context.queue(), step);
		}

		@TaskHandler(queue = "o-retry")
		void retry(Step step, TaskContext context) {
			run(context.queue(), step);
			if (step.index() == 1 && step.key().equals("retried") && context.attempt() < 3) {
				throw new IllegalStateException("attempt " + context.attempt() + " fails");
			}
			if (step.index() == 1 && step.key().equals("dead")) {
				throw new NonRetryableTaskException("goes to the dead letters");
			}
		}

		private static void run(String queue, Step step) {
			String key = queue + "/" + step.key();
			AtomicInteger now = running.computeIfAbsent(key, (k) -> new AtomicInteger());
			if (now.incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			keysAtOnce.accumulateAndGet(runningKeys.incrementAndGet(), Math::max);
			starts.computeIfAbsent(key, (k) -> Collections.synchronizedList(new ArrayList<>())).add(step.index());
			try {
				Thread.sleep(ThreadLocalRandom.current().nextInt(3)); // lets a wrong order or an overlap show
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			runningKeys.decrementAndGet();
			now.decrementAndGet();
		}

	}

}
