package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hash-sharded claims with whole application instances: tasks spread over the buckets, every task handled exactly
 * once by three instances in each completion mode, nothing stranded when the producer and the workers count buckets
 * differently, and priority order within each bucket.
 */
class HashShardedClaimsIntegrationTests {

	private static final List<String> QUEUES = List.of("tx", "grouped", "batched");

	@Test
	void threeInstancesWithSixteenBucketsRunEveryTaskExactlyOnceInEveryCompletionMode() {
		String url = TestDatabase.createDatabase();
		String[] sixteen = { "taskqueue.queues.tx.buckets=16", "taskqueue.queues.grouped.buckets=16",
				"taskqueue.queues.batched.buckets=16", "taskqueue.queues.grouped.group-commit-size=8",
				"taskqueue.worker.concurrency=4", "spring.datasource.hikari.maximum-pool-size=8",
				// Each instance sees the resume below at its next heartbeat: soon, so that none drains all alone.
				"taskqueue.worker.heartbeat-interval=100ms" };
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			ConfigurableApplicationContext producer = TestApplications.start(url, List.of(Config.class),
					with(sixteen, "taskqueue.worker.enabled=false"));
			instances.add(producer);
			JdbcTemplate jdbc = producer.getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE business (task_id uuid NOT NULL, queue text NOT NULL, instance text NOT NULL)");
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			TaskQueueOperations operations = producer.getBean(TaskQueueOperations.class);
			QUEUES.forEach(operations::pause); // until all three workers run, so that each takes part
			for (String queue : QUEUES) {
				for (int batch = 0; batch < 4; batch++) {
					List<TaskRequest> requests = new ArrayList<>();
					for (int i = 0; i < 250; i++) {
						requests.add(TaskRequest.of(queue, Map.of("n", i)));
					}
					taskQueue.enqueueAll(requests);
				}
				// A few through the single-task insert as well.
				for (int i = 0; i < 20; i++) {
					taskQueue.enqueue(TaskRequest.of(queue, Map.of("n", -i)));
				}
			}
			assertThat(jdbc.queryForList("SELECT count(DISTINCT bucket) FROM taskqueue_task GROUP BY queue",
					Integer.class))
				.as("each queue's tasks are in all 16 buckets").containsExactly(16, 16, 16);
			for (int i = 0; i < 3; i++) {
				instances.add(TestApplications.start(url, List.of(Config.class), sixteen));
			}
			QUEUES.forEach(operations::resume);
			Await.until("all tasks are done", Duration.ofSeconds(180),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			for (String queue : QUEUES) {
				assertThat(jdbc.queryForObject("SELECT count(*) FROM business WHERE queue = ?", Integer.class, queue))
					.as(queue).isEqualTo(1020);
				assertThat(jdbc.queryForObject("SELECT count(DISTINCT task_id) FROM business WHERE queue = ?",
						Integer.class, queue))
					.as(queue).isEqualTo(1020);
			}
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
			assertThat(jdbc.queryForList("SELECT DISTINCT instance FROM business", String.class))
				.as("every worker instance took part").hasSize(3);
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Test
	void aBucketCountThatDiffersBetweenProducersAndWorkersStrandsNothing() {
		String url = TestDatabase.createDatabase();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			// Tasks enqueued with 64 buckets and with the default of one, then run by workers that count 4 and 1.
			ConfigurableApplicationContext wide = TestApplications.start(url, List.of(Config.class),
					"taskqueue.worker.enabled=false", "taskqueue.queues.tx.buckets=64");
			instances.add(wide);
			JdbcTemplate jdbc = wide.getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE business (task_id uuid NOT NULL, queue text NOT NULL, instance text NOT NULL)");
			enqueue(wide.getBean(TaskQueue.class), 640);
			ConfigurableApplicationContext narrow = TestApplications.start(url, List.of(Config.class),
					"taskqueue.worker.enabled=false");
			instances.add(narrow);
			enqueue(narrow.getBean(TaskQueue.class), 160);
			assertThat(jdbc.queryForObject("SELECT max(bucket) FROM taskqueue_task", Integer.class))
				.as("tasks in buckets no worker below rotates over").isGreaterThan(4);
			instances.add(TestApplications.start(url, List.of(Config.class), "taskqueue.queues.tx.buckets=4"));
			instances.add(TestApplications.start(url, List.of(Config.class)));
			Await.until("all tasks are done", Duration.ofSeconds(120),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM business", Integer.class)).isEqualTo(800);
			assertThat(jdbc.queryForObject("SELECT count(DISTINCT task_id) FROM business", Integer.class))
				.isEqualTo(800);
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Test
	void tasksOfOneBucketRunInPriorityOrder() {
		String url = TestDatabase.createDatabase();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			ConfigurableApplicationContext producer = TestApplications.start(url, List.of(Config.class),
					"taskqueue.worker.enabled=false", "taskqueue.queues.ordered.buckets=4");
			instances.add(producer);
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			for (int i = 0; i < 200; i++) {
				taskQueue.enqueue(TaskRequest.of("ordered", Map.of("n", i)).withPriority((i * 7) % 10));
			}
			JdbcTemplate jdbc = producer.getBean(JdbcTemplate.class);
			Map<UUID, int[]> bucketAndPriority = new HashMap<>();
			jdbc.query("SELECT id, bucket, priority FROM taskqueue_task", (rs) -> {
				bucketAndPriority.put(rs.getObject(1, UUID.class), new int[] { rs.getInt(2), rs.getInt(3) });
			});
			assertThat(bucketAndPriority.values().stream().map((value) -> value[0]).distinct()).hasSize(4);
			ConfigurableApplicationContext worker = TestApplications.start(url, List.of(Config.class),
					"taskqueue.queues.ordered.buckets=4", "taskqueue.queues.ordered.concurrency=1");
			instances.add(worker);
			OrderedHandler handler = worker.getBean(OrderedHandler.class);
			Await.until("all tasks ran", Duration.ofSeconds(60), () -> handler.order.size() == 200);
			int[] lastPriority = { Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE };
			for (UUID id : handler.order) {
				int[] task = bucketAndPriority.get(id);
				assertThat(task[1]).as("priority within bucket " + task[0]).isLessThanOrEqualTo(lastPriority[task[0]]);
				lastPriority[task[0]] = task[1];
			}
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	private static void enqueue(TaskQueue taskQueue, int tasks) {
		List<TaskRequest> requests = new ArrayList<>();
		for (int i = 0; i < tasks; i++) {
			requests.add(TaskRequest.of("tx", Map.of("n", i)));
		}
		taskQueue.enqueueAll(requests);
	}

	private static String[] with(String[] properties, String more) {
		List<String> all = new ArrayList<>(List.of(properties));
		all.add(more);
		return all.toArray(String[]::new);
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		BusinessHandlers businessHandlers(JdbcTemplate jdbc) {
			return new BusinessHandlers(jdbc);
		}

		@Bean
		OrderedHandler orderedHandler() {
			return new OrderedHandler();
		}

	}

	static class BusinessHandlers {

		private final JdbcTemplate jdbc;

		private final String instance = UUID.randomUUID().toString();

		BusinessHandlers(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "tx")
		void transactional(Map<String, Integer> payload, TaskContext context) {
			record(context, "tx");
		}

		@TaskHandler(queue = "grouped")
		void grouped(Map<String, Integer> payload, TaskContext context) {
			record(context, "grouped");
		}

		@TaskHandler(queue = "batched", completion = TaskHandler.Completion.BATCHED)
		void batched(Map<String, Integer> payload, TaskContext context) {
			record(context, "batched");
		}

		private void record(TaskContext context, String queue) {
			this.jdbc.update("INSERT INTO business (task_id, queue, instance) VALUES (?, ?, ?)", context.id(), queue,
					this.instance);
		}

	}

	static class OrderedHandler {

		final List<UUID> order = new CopyOnWriteArrayList<>();

		@TaskHandler(queue = "ordered")
		void handle(Map<String, Integer> payload, TaskContext context) {
			this.order.add(context.id());
		}

	}

}
