package dev.taskqueue.internal.operations;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskHandler.Completion;
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
 * Dead letters and history rows are deleted once past their retention, in batches, and the history records each
 * completed task only when it is enabled.
 */
class RetentionAndHistoryIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void pruneDeletesOnlyRowsOlderThanTheirRetentionInBatches() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(), List.of(),
				"taskqueue.retention.dead-letters=2d", "taskqueue.retention.history=1h",
				"taskqueue.retention.prune-interval=1h")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			// More old rows than one batch, so that the pruner has to go round.
			insertDead(jdbc, RetentionPruner.BATCH + 500, "3 days");
			insertDead(jdbc, 7, "1 day");
			insertHistory(jdbc, 40, "2 hours");
			insertHistory(jdbc, 5, "10 minutes");
			assertThat(context.getBean(RetentionPruner.class).prune()).isEqualTo(RetentionPruner.BATCH + 500 + 40);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isEqualTo(7);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_history", Integer.class)).isEqualTo(5);
			assertThat(context.getBean(RetentionPruner.class).prune()).isZero();
		}
	}

	@Test
	void everyInstancePrunesOnItsInterval() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(), List.of(),
				"taskqueue.retention.dead-letters=1h", "taskqueue.retention.prune-interval=100ms")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			insertDead(jdbc, 3, "2 hours");
			insertDead(jdbc, 1, "1 minute");
			Await.until("the old dead letters are gone", WAIT,
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class) == 1);
		}
	}

	@Test
	void historyKeepsEveryCompletedTaskWhenEnabled() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.history.enabled=true", "taskqueue.queues.h-fails.max-attempts=1")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			UUID id = taskQueue.enqueue(TaskRequest.of("h-work", Map.of("n", 1)).withPriority(4));
			UUID failed = taskQueue.enqueue("h-fails", "x");
			Await.until("both are settled", WAIT, () -> jdbc.queryForObject(
					"SELECT (SELECT count(*) FROM taskqueue_task) = 0 AND (SELECT count(*) FROM taskqueue_history) = 1",
					Boolean.class));
			Map<String, Object> row = jdbc.queryForMap("SELECT queue, payload::text AS payload, priority, attempts, "
					+ "completed_at >= enqueued_at AS ordered FROM taskqueue_history WHERE id = ?", id);
			assertThat(row).containsEntry("queue", "h-work")
				.containsEntry("payload", "{\"n\": 1}")
				.containsEntry("priority", 4)
				.containsEntry("attempts", 1)
				.containsEntry("ordered", true);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_history WHERE id = ?", Integer.class,
					failed)).isZero();
		}
	}

	@Test
	void historyAlsoKeepsTasksCompletedInBatches() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.history.enabled=true")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			List<UUID> batched = context.getBean(TaskQueue.class).enqueueAll(List.of(TaskRequest.of("h-batched", "a"),
					TaskRequest.of("h-batched", "b"), TaskRequest.of("h-batched", "c")));
			Await.until("all are completed", WAIT, () -> jdbc.queryForObject(
					"SELECT (SELECT count(*) FROM taskqueue_task) = 0 AND (SELECT count(*) FROM taskqueue_history) = 3",
					Boolean.class));
			assertThat(jdbc.queryForList("SELECT id FROM taskqueue_history", UUID.class))
				.containsExactlyInAnyOrderElementsOf(batched);
		}
	}

	@Test
	void theHistoryAndTheDeadLettersKeepTheKeysAndBatchTheTasksWereEnqueuedWith() {
		// Every way a task leaves the task table for the history or the dead letters: a transactional completion
		// (Completer.CompletionCommit), a group commit, a batched completion, a cancel, and a last attempt that fails.
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.history.enabled=true", "taskqueue.queues.h-fails.max-attempts=1",
				"taskqueue.queues.h-group.group-commit-size=4")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			UUID unique = taskQueue.enqueue(TaskRequest.of("h-work", Map.of("n", 1)).withUniqueKey("u-work"));
			List<UUID> ordered = taskQueue.enqueueAll(List.of(
					TaskRequest.of("h-work", Map.of("n", 2)).withOrderingKey("o-work"),
					TaskRequest.of("h-work", Map.of("n", 3)).withOrderingKey("o-work")));
			UUID grouped = taskQueue.enqueue(TaskRequest.of("h-group", "g").withUniqueKey("u-group"));
			UUID batched = taskQueue.enqueue(TaskRequest.of("h-batched", "b").withOrderingKey("o-batched"));
			UUID deadUnique = taskQueue.enqueue(TaskRequest.of("h-fails", "f").withUniqueKey("u-dead"));
			UUID deadOrdered = taskQueue.enqueue(TaskRequest.of("h-fails", "f").withOrderingKey("o-dead"));
			UUID cancelled = taskQueue.enqueue(
					TaskRequest.of("h-work", Map.of("n", 4)).withUniqueKey("u-cancel").withDelay(Duration.ofHours(1)));
			UUID batch = taskQueue.enqueueBatch(List.of(TaskRequest.of("h-work", Map.of("n", 5))),
					TaskRequest.of("h-work", Map.of("n", 6))).id();
			UUID fair = taskQueue.enqueue(TaskRequest.of("h-work", Map.of("n", 7)).withFairnessKey("t-work"));
			List<UUID> fairGrouped = taskQueue.enqueueAll(List.of(TaskRequest.of("h-group", "g").withFairnessKey("t-group"),
					TaskRequest.of("h-group", "g").withFairnessKey("t-group-2")));
			UUID fairBatched = taskQueue.enqueue(TaskRequest.of("h-batched", "b").withFairnessKey("t-batched"));
			UUID fairDead = taskQueue.enqueue(TaskRequest.of("h-fails", "f").withFairnessKey("t-dead"));
			UUID fairCancelled = taskQueue.enqueue(TaskRequest.of("h-work", Map.of("n", 8))
				.withFairnessKey("t-cancel")
				.withDelay(Duration.ofHours(1)));
			assertThat(context.getBean(TaskQueueOperations.class).cancel(cancelled, "test")).isTrue();
			assertThat(context.getBean(TaskQueueOperations.class).cancel(fairCancelled, "test")).isTrue();
			Await.until("all are settled", WAIT, () -> jdbc.queryForObject(
					"SELECT (SELECT count(*) FROM taskqueue_task) = 0 AND (SELECT count(*) FROM taskqueue_dead_task) = 3",
					Boolean.class));
			assertThat(jdbc.queryForList("SELECT id::text || ' ' || outcome || ' ' || coalesce(unique_key, '-') || ' ' "
					+ "|| coalesce(ordering_key, '-') FROM taskqueue_history WHERE unique_key IS NOT NULL "
					+ "OR ordering_key IS NOT NULL", String.class))
				.containsExactlyInAnyOrder(unique + " completed u-work -", ordered.get(0) + " completed - o-work",
						ordered.get(1) + " completed - o-work", grouped + " completed u-group -",
						batched + " completed - o-batched", cancelled + " cancelled u-cancel -");
			assertThat(jdbc.queryForList("SELECT id::text || ' ' || outcome || ' ' || fairness_key FROM taskqueue_history "
					+ "WHERE fairness_key IS NOT NULL", String.class))
				.containsExactlyInAnyOrder(fair + " completed t-work", fairGrouped.get(0) + " completed t-group",
						fairGrouped.get(1) + " completed t-group-2", fairBatched + " completed t-batched",
						fairCancelled + " cancelled t-cancel");
			assertThat(jdbc.queryForList("SELECT id::text || ' ' || coalesce(unique_key, '-') || ' ' "
					+ "|| coalesce(ordering_key, '-') || ' ' || coalesce(fairness_key, '-') FROM taskqueue_dead_task",
					String.class))
				.containsExactlyInAnyOrder(deadUnique + " u-dead - -", deadOrdered + " - o-dead -",
						fairDead + " - - t-dead");
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_history WHERE batch_id = ?", Integer.class,
					batch)).isOne();
		}
	}

	@Test
	void historyStaysEmptyWhenDisabled() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class))) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			taskQueue.enqueueAll(
					List.of(TaskRequest.of("h-work", Map.of("n", 1)), TaskRequest.of("h-work", Map.of("n", 2))));
			Await.until("both are handled", WAIT, () -> context.getBean(Handlers.class).handled.size() == 2
					&& jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_history", Integer.class)).isZero();
		}
	}

	private static void insertDead(JdbcTemplate jdbc, int count, String age) {
		jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, "
				+ "error) SELECT gen_random_uuid(), 'r', '{}', 0, 1, now() - interval '" + age + "', now() - interval '"
				+ age + "', 'x' FROM generate_series(1, ?)", count);
	}

	private static void insertHistory(JdbcTemplate jdbc, int count, String age) {
		jdbc.update("INSERT INTO taskqueue_history (id, queue, payload, priority, attempts, enqueued_at, completed_at) "
				+ "SELECT gen_random_uuid(), 'r', '{}', 0, 1, now() - interval '" + age + "', now() - interval '" + age
				+ "' FROM generate_series(1, ?)", count);
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	static class Handlers {

		final Map<UUID, String> handled = new ConcurrentHashMap<>();

		@TaskHandler(queue = "h-work")
		void work(Map<String, Integer> payload, TaskContext context) {
			this.handled.put(context.id(), context.queue());
		}

		@TaskHandler(queue = "h-batched", completion = Completion.BATCHED)
		void batched(String payload, TaskContext context) {
			this.handled.put(context.id(), context.queue());
		}

		@TaskHandler(queue = "h-group")
		void grouped(String payload, TaskContext context) {
			this.handled.put(context.id(), context.queue());
		}

		@TaskHandler(queue = "h-fails")
		void fails(String payload) {
			throw new IllegalStateException("fails");
		}

	}

}
