package dev.taskqueue.internal.operations;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.taskqueue.DeadTask;
import dev.taskqueue.DeadTaskPage;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskQueueOperations.WorkerSessionInfo;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import dev.taskqueue.internal.worker.TaskWorker;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The public operations API on a real PostgreSQL, with two application instances sharing one database.
 */
class TaskQueueOperationsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	/** Longer than several heartbeats: a paused queue must stay untouched for at least this long. */
	private static final Duration PAUSED_FOR = Duration.ofSeconds(1);

	private static final String[] FAST = { "taskqueue.worker.heartbeat-interval=100ms",
			"taskqueue.queues.ops-dead.max-attempts=1", "taskqueue.metrics.count-limit=3" };

	@Test
	void pauseIsHonouredByEveryInstanceUntilResume() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext first = TestApplications.start(url, List.of(Config.class), FAST);
				ConfigurableApplicationContext second = TestApplications.start(url, List.of(Config.class), FAST)) {
			TaskQueueOperations operations = first.getBean(TaskQueueOperations.class);
			operations.pause("ops-work");
			assertThat(operations.isPaused("ops-work")).isTrue();
			assertThat(operations.pausedQueues()).containsExactly("ops-work");
			sleepPastHeartbeats();
			List<UUID> ids = first.getBean(TaskQueue.class).enqueueAll(List.of(TaskRequest.of("ops-work", "1"),
					TaskRequest.of("ops-work", "2"), TaskRequest.of("ops-work", "3"), TaskRequest.of("ops-work", "4")));
			sleepPastHeartbeats();
			assertThat(handled(first)).isEmpty();
			assertThat(handled(second)).isEmpty();
			QueueStats paused = stats(operations, "ops-work");
			assertThat(paused.ready()).isEqualTo(3); // four, counted up to the count limit
			assertThat(paused.running()).isZero();
			assertThat(paused.paused()).isTrue();

			second.getBean(TaskQueueOperations.class).resume("ops-work");
			assertThat(operations.isPaused("ops-work")).isFalse();
			Await.until("all four are handled, each once", WAIT,
					() -> handled(first).size() + handled(second).size() == 4);
			assertThat(union(handled(first), handled(second))).containsExactlyInAnyOrderElementsOf(ids);
			assertThat(operations.pausedQueues()).isEmpty();
		}
	}

	@Test
	void deadTasksAreRetriedOneByOneOrAllAtOnceAndDeleted() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), FAST)) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			Handlers handlers = context.getBean(Handlers.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			List<UUID> ids = context.getBean(TaskQueue.class).enqueueAll(List.of(TaskRequest.of("ops-dead", "a"),
					TaskRequest.of("ops-dead", "b"), TaskRequest.of("ops-dead", "c"), TaskRequest.of("ops-dead", "d")));
			Await.until("all four are dead", WAIT, () -> dead(jdbc, "ops-dead") == 4);
			assertThat(stats(operations, "ops-dead").dead()).isEqualTo(3); // the count limit
			handlers.deadQueueFails.set(false);

			assertThat(operations.retryDead(ids.get(0))).isTrue();
			assertThat(operations.retryDead(ids.get(0))).isFalse();
			Await.until("the retried task is handled", WAIT, () -> handled(context).contains(ids.get(0)));
			Map<String, Object> retried = handlers.contexts.get(ids.get(0));
			assertThat(retried).containsEntry("attempt", 1);

			assertThat(operations.deleteDead(ids.get(1))).isTrue();
			assertThat(operations.deleteDead(ids.get(1))).isFalse();
			assertThat(operations.retryAllDead("ops-dead")).isEqualTo(2);
			Await.until("the other two are handled", WAIT,
					() -> handled(context).containsAll(List.of(ids.get(2), ids.get(3))));
			assertThat(handled(context)).doesNotContain(ids.get(1));
			assertThat(dead(jdbc, "ops-dead")).isZero();

			handlers.deadQueueFails.set(true);
			context.getBean(TaskQueue.class).enqueueAll(List.of(TaskRequest.of("ops-dead", "e"),
					TaskRequest.of("ops-dead", "f")));
			Await.until("two more are dead", WAIT, () -> dead(jdbc, "ops-dead") == 2);
			assertThat(operations.deleteAllDead("ops-dead")).isEqualTo(2);
			assertThat(operations.retryAllDead("ops-dead")).isZero();
		}
	}

	@Test
	void deadTasksAreListedNewestFirstPageByPageAndReadInFull() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), FAST)) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			UUID died = context.getBean(TaskQueue.class)
				.enqueue(TaskRequest.of("ops-dead", "{\"order\": 42}").withPriority(3));
			Await.until("the task is dead", WAIT, () -> dead(jdbc, "ops-dead") == 1);
			DeadTask task = operations.deadTask(died).orElseThrow();
			assertThat(task.queue()).isEqualTo("ops-dead");
			assertThat(task.priority()).isEqualTo(3);
			assertThat(task.attempts()).isOne();
			assertThat(task.payload()).isEqualTo("\"{\\\"order\\\": 42}\"");
			assertThat(task.errorLine()).isEqualTo("java.lang.IllegalStateException: fails while deadQueueFails");
			assertThat(task.error()).startsWith(task.errorLine() + System.lineSeparator() + "\tat ");
			assertThat(task.failedAt()).isAfterOrEqualTo(task.enqueuedAt());
			assertThat(operations.deadTask(UUID.randomUUID())).isEmpty();

			// Seven dead tasks in ops-page, three of them failed in the same microsecond, and two elsewhere.
			for (int i = 0; i < 7; i++) {
				insertDead(jdbc, "ops-page", "2026-01-01T00:00:0" + Math.min(i, 4) + "Z");
			}
			insertDead(jdbc, "ops-other", "2026-01-01T00:00:09Z");
			insertDead(jdbc, "ops-other", "2025-01-01T00:00:00Z");
			List<UUID> expected = jdbc.queryForList("SELECT id FROM taskqueue_dead_task WHERE queue = 'ops-page' "
					+ "ORDER BY failed_at DESC, id DESC", UUID.class);
			List<UUID> paged = new ArrayList<>();
			List<Integer> sizes = new ArrayList<>();
			String cursor = null;
			do {
				DeadTaskPage page = operations.deadTasks("ops-page", 3, cursor);
				page.tasks().forEach((dead) -> paged.add(dead.id()));
				sizes.add(page.tasks().size());
				cursor = page.next();
			}
			while (cursor != null);
			assertThat(paged).isEqualTo(expected);
			assertThat(sizes).containsExactly(3, 3, 1);
			// A page that ends exactly at the last task says so: no empty page after it.
			DeadTaskPage six = operations.deadTasks("ops-page", 6, null);
			assertThat(operations.deadTasks("ops-page", 1, six.next()).next()).isNull();
			assertThat(operations.deadTasks("ops-page", 7, null).next()).isNull();

			DeadTaskPage all = operations.deadTasks(null, DeadTaskPage.MAX_LIMIT, null);
			assertThat(all.next()).isNull();
			assertThat(all.tasks()).hasSize(10);
			assertThat(all.tasks().get(0)).extracting(DeadTask::id).isEqualTo(died); // failed now, after 2026-01-01
			assertThat(all.tasks().get(1).queue()).isEqualTo("ops-other");
			assertThat(all.tasks().get(9).queue()).isEqualTo("ops-other");
			assertThat(operations.deadTasks("ops-nothing", 50, null).tasks()).isEmpty();

			assertThatIllegalArgumentException().isThrownBy(() -> operations.deadTasks("ops-page", 0, null))
				.withMessage("limit must be from 1 to 500 but was 0");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.deadTasks("ops-page", 501, null))
				.withMessage("limit must be from 1 to 500 but was 501");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.deadTasks("ops-page", 5, "yesterday"))
				.withMessage("cursor must be the 'next' of a page of dead tasks but was 'yesterday'");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.deadTasks("not a queue", 5, null))
				.withMessageStartingWith("queue must be");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.deadTask(null))
				.withMessage("id must not be null");
		}
	}

	@Test
	void cancelAllDeletesEveryWaitingTaskOfTheQueueInBatchesAndLeavesRunningOnes() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), FAST)) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			Handlers handlers = context.getBean(Handlers.class);
			UUID running = taskQueue.enqueue("ops-block", "runs until released");
			Await.until("the blocking task runs", WAIT, () -> handlers.blocking.get());
			operations.pause("ops-block");
			sleepPastHeartbeats();
			List<TaskRequest> mistake = new ArrayList<>();
			for (int i = 0; i < 25_000; i++) {
				mistake.add(TaskRequest.of("ops-block", "mistake " + i));
			}
			taskQueue.enqueueAll(mistake);
			taskQueue.enqueue(TaskRequest.of("ops-block", "later").withDelay(Duration.ofHours(1)));
			UUID kept = taskQueue.enqueue(TaskRequest.of("ops-work", "other queue").withDelay(Duration.ofHours(1)));

			assertThat(operations.cancelAll("ops-block")).isEqualTo(25_001); // three batches: 10,000 each at most
			assertThat(operations.cancelAll("ops-block")).isZero();
			assertThat(jdbc.queryForList("SELECT id FROM taskqueue_task WHERE queue = 'ops-block'", UUID.class))
				.containsExactly(running);
			assertThat(jdbc.queryForList("SELECT id FROM taskqueue_task WHERE queue = 'ops-work'", UUID.class))
				.containsExactly(kept);
			operations.resume("ops-block");
			handlers.blocking.set(false);
			Await.until("the running task completes", WAIT, () -> handled(context).contains(running));
			assertThat(handled(context)).containsExactly(running);
			assertThatIllegalArgumentException().isThrownBy(() -> operations.cancelAll(null))
				.withMessageContaining("null");
		}
	}

	@Test
	void waitingAndRunningTasksAreCancelledAndKeptInTheHistoryWithWhoAsked() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), withHistory())) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			UUID later = taskQueue.enqueue(TaskRequest.of("ops-work", "later").withDelay(Duration.ofHours(1)));
			UUID blocked = taskQueue.enqueue("ops-block", "runs until released");
			Handlers handlers = context.getBean(Handlers.class);
			Await.until("the blocking task runs", WAIT, () -> handlers.blocking.get());
			assertThat(operations.cancel(later, "alice")).isTrue();
			assertThat(operations.cancel(later)).isFalse();
			assertThat(operations.cancel(blocked)).isTrue(); // its handler is interrupted: it sleeps
			assertThat(operations.cancel(blocked)).isFalse();
			assertThat(operations.cancel(UUID.randomUUID())).isFalse();
			Await.until("the cancelled task's request is done with", WAIT,
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_cancel_request", Integer.class) == 0);
			assertThat(handled(context)).doesNotContain(later, blocked);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
			assertThat(jdbc.queryForList("SELECT outcome || ' ' || coalesce(cancelled_by, '-') || ' ' || attempts "
					+ "FROM taskqueue_history WHERE id IN (?, ?) ORDER BY id", String.class, later, blocked))
				.containsExactly("cancelled alice 0", "cancelled - 1");
		}
	}

	@Test
	void whoAskedForACancelMustBeStorable() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(), List.of(),
				"taskqueue.worker.enabled=false")) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			UUID id = context.getBean(TaskQueue.class).enqueue("ops-work", "later");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.cancel(id, " "))
				.withMessage("requestedBy is blank");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.cancel(id, "x".repeat(201)))
				.withMessage("requestedBy is longer than 200 characters");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.cancel(id, "a\0b"))
				.withMessageStartingWith("requestedBy contains U+0000");
			assertThat(operations.cancel(id, "x".repeat(200))).isTrue();
		}
	}

	@Test
	void statsAndSessionsDescribeEveryQueueAndInstance() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class), FAST);
				ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
						"taskqueue.worker.enabled=false")) {
			TaskQueueOperations operations = producer.getBean(TaskQueueOperations.class);
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			taskQueue.enqueueAll(List.of(TaskRequest.of("ops-stats", "p1").withPriority(1),
					TaskRequest.of("ops-stats", "p0").withRunAt(Instant.now().minusSeconds(30)),
					TaskRequest.of("ops-stats", "p9").withPriority(9).withDelay(Duration.ofHours(1)),
					TaskRequest.of("ops-stats", "p0 later").withDelay(Duration.ofHours(2))));
			operations.pause("ops-empty");
			UUID blocked = taskQueue.enqueue("ops-block", "runs until released");
			Handlers handlers = context.getBean(Handlers.class);
			Await.until("the blocking task runs", WAIT, () -> handlers.blocking.get());

			QueueStats stats = stats(operations, "ops-stats");
			assertThat(stats.ready()).isEqualTo(2);
			assertThat(stats.scheduled()).isEqualTo(2);
			assertThat(stats.running()).isZero();
			assertThat(stats.oldestReadyAge()).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(90));
			assertThat(stats(operations, "ops-empty"))
				.isEqualTo(new QueueStats("ops-empty", 0, 0, 0, 0, Duration.ZERO, true));
			assertThat(stats(operations, "ops-block").running()).isEqualTo(1);
			// The producer has no handlers, the worker instance lists its own queues even when they are empty.
			assertThat(context.getBean(TaskQueueOperations.class).queueStats()).extracting(QueueStats::queue)
				.contains("ops-work", "ops-dead", "ops-stats", "ops-empty", "ops-block");
			assertThat(operations.queueStats()).extracting(QueueStats::queue).doesNotContain("ops-work");
			assertThat(operations.queueStats("ops-work"))
				.isEqualTo(new QueueStats("ops-work", 0, 0, 0, 0, Duration.ZERO, false));
			assertThat(stats(context.getBean(TaskQueueOperations.class), "ops-work"))
				.isEqualTo(new QueueStats("ops-work", 0, 0, 0, 0, Duration.ZERO, false));
			assertThatIllegalArgumentException().isThrownBy(() -> operations.queueStats("not a queue"));

			List<WorkerSessionInfo> sessions = operations.sessions();
			assertThat(sessions).hasSize(1);
			WorkerSessionInfo session = sessions.get(0);
			assertThat(session.id()).isEqualTo(context.getBean(TaskWorker.class).sessionId());
			assertThat(session.name()).contains("@");
			assertThat(session.runningTasks()).isEqualTo(1);
			assertThat(session.heartbeatAge()).isLessThan(Duration.ofSeconds(5));
			assertThat(session.lastHeartbeat()).isAfterOrEqualTo(session.startedAt());
			handlers.blocking.set(false);
			Await.until("the running task completes", WAIT, () -> handled(context).contains(blocked));
		}
	}

	@Test
	void invalidQueueNamesAreRejected() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(), List.of(),
				"taskqueue.worker.enabled=false")) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			assertThatIllegalArgumentException().isThrownBy(() -> operations.pause("not a queue"))
				.withMessage("queue must be 1 to 100 letters, digits, '.', '_', '-' or ':' but was 'not a queue'");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.retryAllDead(null))
				.withMessageContaining("null");
			assertThatIllegalArgumentException().isThrownBy(() -> operations.cancel(null))
				.withMessage("id must not be null");
		}
	}

	/** A queue's entry in the list, which the statistics of that queue alone must equal. */
	private static QueueStats stats(TaskQueueOperations operations, String queue) {
		QueueStats listed = operations.queueStats()
			.stream()
			.filter((stats) -> stats.queue().equals(queue))
			.findFirst()
			.orElseThrow();
		assertThat(operations.queueStats(queue)).usingRecursiveComparison()
			.ignoringFields("oldestReadyAge") // on the clock of each read
			.isEqualTo(listed);
		return listed;
	}

	private static String[] withHistory() {
		List<String> properties = new ArrayList<>(List.of(FAST));
		properties.add("taskqueue.history.enabled=true");
		return properties.toArray(String[]::new);
	}

	private static Set<UUID> handled(ConfigurableApplicationContext context) {
		return context.getBean(Handlers.class).contexts.keySet();
	}

	private static List<UUID> union(Set<UUID> first, Set<UUID> second) {
		List<UUID> all = new ArrayList<>(first);
		all.addAll(second);
		return all;
	}

	private static int dead(JdbcTemplate jdbc, String queue) {
		return jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = ?", Integer.class, queue);
	}

	private static void insertDead(JdbcTemplate jdbc, String queue, String failedAt) {
		jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, "
				+ "error) VALUES (?, ?, '{}', 0, 1, '2025-01-01Z', ?::timestamptz, 'java.lang.Error: seeded')",
				UUID.randomUUID(), queue, failedAt);
	}

	private static void sleepPastHeartbeats() {
		try {
			Thread.sleep(PAUSED_FOR.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
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

		final Map<UUID, Map<String, Object>> contexts = new ConcurrentHashMap<>();

		final AtomicBoolean deadQueueFails = new AtomicBoolean(true);

		final AtomicBoolean blocking = new AtomicBoolean();

		@TaskHandler(queue = "ops-work")
		void work(String payload, TaskContext context) {
			this.contexts.put(context.id(), Map.of("attempt", context.attempt()));
		}

		@TaskHandler(queue = "ops-dead")
		void dead(String payload, TaskContext context) {
			if (this.deadQueueFails.get()) {
				throw new IllegalStateException("fails while deadQueueFails");
			}
			this.contexts.put(context.id(), Map.of("attempt", context.attempt()));
		}

		@TaskHandler(queue = "ops-block")
		void block(String payload, TaskContext context) throws InterruptedException {
			this.blocking.set(true);
			while (this.blocking.get()) {
				Thread.sleep(10);
			}
			this.contexts.put(context.id(), Map.of("attempt", context.attempt()));
		}

	}

}
