package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Handlers in BATCHED mode: every task runs once and is completed by a batch; failures still retry and die;
 * closing the application writes the completions still waiting.
 */
class BatchedCompletionIntegrationTests {

	static final Map<UUID, AtomicInteger> runs = new ConcurrentHashMap<>();

	static final AtomicInteger completedEvents = new AtomicInteger();

	@Test
	void everyTaskRunsOnceAndIsCompletedInBatches() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				"taskqueue.queues.fast.concurrency=16", "taskqueue.queues.fast.max-attempts=2")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			int before = completedEvents.get();
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < 2_000; i++) {
				requests.add(TaskRequest.of("fast", (i == 7) ? "fail" : "ok"));
			}
			List<UUID> ids = taskQueue.enqueueAll(requests);
			Await.until("all tasks are settled", Duration.ofSeconds(60),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isEqualTo(1);
			assertThat(runs.get(ids.get(7))).hasValue(2);
			assertThat(ids).allSatisfy((id) -> assertThat(runs.get(id)).isNotNull());
			assertThat(runs.entrySet()).filteredOn((entry) -> !entry.getKey().equals(ids.get(7)))
				.allSatisfy((entry) -> assertThat(entry.getValue()).hasValue(1));
			Await.until("every completion was heard", Duration.ofSeconds(20),
					() -> completedEvents.get() >= before + 1_999);
			assertThat(completedEvents.get()).isEqualTo(before + 1_999);
		}
	}

	@Test
	void prefetchedTasksWaitForTheQueuesConcurrency() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				"taskqueue.queues.slowish.concurrency=2", "spring.datasource.hikari.maximum-pool-size=20")) {
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < 200; i++) {
				requests.add(TaskRequest.of("slowish", i));
			}
			context.getBean(TaskQueue.class).enqueueAll(requests);
			Await.until("all tasks are done", Duration.ofSeconds(60),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(FastHandler.mostAtOnce).hasValue(2);
		}
	}

	@Test
	void theNextClaimWritesTheCompletionsWaitingInItsOwnStatement() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				"taskqueue.worker.completion-flush-interval=1h", "taskqueue.worker.completion-batch-size=1000",
				"taskqueue.worker.poll-interval=100ms")) {
			List<UUID> ids = context.getBean(TaskQueue.class)
				.enqueueAll(List.of(TaskRequest.of("fast", "ok"), TaskRequest.of("fast", "ok")));
			Await.until("the claims after the handlers wrote their completions", Duration.ofSeconds(10),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(ids).allSatisfy((id) -> assertThat(runs.get(id)).hasValue(1));
		}
	}

	@Test
	void closingTheApplicationWritesTheCompletionsStillWaiting() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		List<UUID> ids;
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(Config.class),
				"taskqueue.worker.enabled=false")) {
			ids = producer.getBean(TaskQueue.class)
				.enqueueAll(List.of(TaskRequest.of("fast", "ok"), TaskRequest.of("fast", "ok")));
		}
		// The worker's first claim takes both tasks. The next claim would write their completions with its own
		// statement: none comes before the close, as nothing is enqueued and the next poll is 10 minutes away (10 s
		// could pass before the check on a loaded machine), as is the flush.
		ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				"taskqueue.worker.completion-flush-interval=10m", "taskqueue.worker.completion-batch-size=1000",
				"taskqueue.worker.poll-interval=10m");
		Await.until("both handlers ran", Duration.ofSeconds(20), () -> ids.stream().allMatch(runs::containsKey));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class))
			.as("completions wait for the flush").isEqualTo(2);
		context.close();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
		assertThat(ids).allSatisfy((id) -> assertThat(runs.get(id)).hasValue(1));
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		FastHandler fastHandler() {
			return new FastHandler();
		}

		@Bean
		TaskQueueListener completionCounter() {
			return new TaskQueueListener() {

				@Override
				public void completed(TaskContext task, Duration duration) {
					completedEvents.incrementAndGet();
				}

			};
		}

	}

	static class FastHandler {

		static final AtomicInteger atOnce = new AtomicInteger();

		static final AtomicInteger mostAtOnce = new AtomicInteger();

		@TaskHandler(queue = "slowish", completion = TaskHandler.Completion.BATCHED)
		void slowish(int n) throws InterruptedException {
			mostAtOnce.accumulateAndGet(atOnce.incrementAndGet(), Math::max);
			Thread.sleep(2);
			atOnce.decrementAndGet();
		}

		@TaskHandler(queue = "fast", completion = TaskHandler.Completion.BATCHED)
		void handle(String payload, TaskContext context) {
			runs.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
			if (payload.equals("fail")) {
				throw new IllegalStateException("fails every time");
			}
		}

	}

}
