package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A task's life on a real PostgreSQL: enqueue, claim, handle, retry, dead letters.
 */
class TaskQueueIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static ConfigurableApplicationContext context;

	private static TaskQueue taskQueue;

	private static JdbcTemplate jdbc;

	private static Handlers handlers;

	@BeforeAll
	static void start() {
		context = TestApplications.start(TestDatabase.createDatabase(), List.of(Config.class),
				"taskqueue.queues.always-fails.max-attempts=3", "taskqueue.queues.ordered.concurrency=1");
		taskQueue = context.getBean(TaskQueue.class);
		jdbc = context.getBean(JdbcTemplate.class);
		handlers = context.getBean(Handlers.class);
		jdbc.execute("CREATE TABLE business (id serial PRIMARY KEY, note text NOT NULL)");
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@Test
	void enqueuedTaskIsHandledWithItsPayloadAndContext() {
		UUID id = taskQueue.enqueue("echo", new Greeting("ada", 3));
		Await.until("the task is handled", WAIT, () -> handlers.echoed.containsKey(id));
		Handled handled = handlers.echoed.get(id);
		assertThat(handled.payload()).isEqualTo(new Greeting("ada", 3));
		assertThat(handled.context().queue()).isEqualTo("echo");
		assertThat(handled.context().attempt()).isEqualTo(1);
		assertThat(handled.context().enqueuedAt()).isBetween(Instant.now().minusSeconds(60), Instant.now());
		Await.until("the task row is gone", WAIT, () -> taskCount() == 0);
	}

	@Test
	void enqueueRolledBackWithTheBusinessTransactionIsNeverHandled() {
		TransactionTemplate transaction = new TransactionTemplate(
				context.getBean(org.springframework.transaction.PlatformTransactionManager.class));
		List<UUID> rolledBack = new ArrayList<>();
		assertThatThrownBy(() -> transaction.executeWithoutResult((status) -> {
			rolledBack.add(taskQueue.enqueue("echo", new Greeting("rolled-back", 0)));
			jdbc.update("INSERT INTO business (note) VALUES ('rolled back')");
			throw new IllegalStateException("business failure");
		})).hasMessage("business failure");
		UUID committed = transaction.execute((status) -> taskQueue.enqueue("echo", new Greeting("committed", 0)));
		Await.until("the committed task is handled", WAIT, () -> handlers.echoed.containsKey(committed));
		assertThat(handlers.echoed).doesNotContainKey(rolledBack.get(0));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class,
				rolledBack.get(0))).isZero();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM business WHERE note = 'rolled back'", Integer.class))
			.isZero();
	}

	@Test
	void higherPriorityRunsFirst() {
		TransactionTemplate transaction = new TransactionTemplate(
				context.getBean(org.springframework.transaction.PlatformTransactionManager.class));
		transaction.executeWithoutResult((status) -> taskQueue.enqueueAll(List.of(
				TaskRequest.of("ordered", "low").withPriority(-5), TaskRequest.of("ordered", "default"),
				TaskRequest.of("ordered", "high").withPriority(10), TaskRequest.of("ordered", "mid").withPriority(5))));
		Await.until("all four run", WAIT, () -> handlers.ordered.size() == 4);
		assertThat(handlers.ordered).containsExactly("high", "mid", "default", "low");
	}

	@Test
	void delayedTaskWaitsForItsTime() {
		Instant before = Instant.now();
		UUID delayed = taskQueue.enqueue(TaskRequest.of("echo", new Greeting("later", 1)).withDelay(Duration.ofMillis(1500)));
		UUID scheduled = taskQueue
			.enqueue(TaskRequest.of("echo", new Greeting("at", 2)).withRunAt(Instant.now().plusMillis(1000)));
		Await.until("both run", WAIT, () -> handlers.echoed.containsKey(delayed) && handlers.echoed.containsKey(scheduled));
		assertThat(Duration.between(before, handlers.echoed.get(delayed).at())).isGreaterThanOrEqualTo(Duration.ofMillis(1400));
		assertThat(Duration.between(before, handlers.echoed.get(scheduled).at())).isGreaterThanOrEqualTo(Duration.ofMillis(900));
	}

	@Test
	void taskDueLongBeforeWhereClaimsHaveGotToStillRunsSoon() {
		UUID recent = taskQueue.enqueue("echo", new Greeting("recent", 1));
		Await.until("the recent task runs", WAIT, () -> handlers.echoed.containsKey(recent));
		// Sorts before where the last claim ended, like a released task or one committed by a long transaction:
		// only the claim that scans the queue from its start can find it. That scan comes about once a second, but
		// up to every 30 s when scans are slow, as they are on a loaded machine (20 times the scan's duration).
		UUID early = taskQueue.enqueue(
				TaskRequest.of("echo", new Greeting("early", 2)).withRunAt(Instant.now().minus(Duration.ofHours(1))));
		Await.until("the early task runs", QueueState.ClaimPositions.FULL_CLAIM_AT_MOST_EVERY.plusSeconds(10),
				() -> handlers.echoed.containsKey(early));
	}

	@Test
	void failedTaskIsRetriedUntilItSucceeds() {
		UUID id = taskQueue.enqueue("flaky", "fails twice");
		Await.until("the third attempt succeeds", WAIT, () -> handlers.flakySucceeded.contains(id));
		assertThat(handlers.flakyAttempts.get(id)).containsExactly(1, 2, 3);
		Await.until("the task row is gone", WAIT, () -> taskCount() == 0);
		assertThat(deadCount("flaky")).isZero();
	}

	@Test
	void taskFailingEveryAttemptEndsInTheDeadLettersWithItsError() {
		UUID id = taskQueue.enqueue("always-fails", new Greeting("doomed", 7));
		Await.until("the task is dead", WAIT, () -> deadCount("always-fails") == 1);
		Map<String, Object> dead = jdbc.queryForMap("SELECT * FROM taskqueue_dead_task WHERE id = ?", id);
		assertThat(dead.get("attempts")).isEqualTo(3);
		assertThat((String) dead.get("error")).startsWith("java.lang.IllegalStateException: always fails on attempt 3")
			.contains("\tat ");
		assertThat(dead.get("payload").toString()).contains("\"doomed\"");
		assertThat(handlers.alwaysFailsAttempts.get()).isEqualTo(3);
		assertThat(taskCount()).isZero();
	}

	@Test
	void nonRetryableFailureGoesStraightToTheDeadLetters() {
		UUID id = taskQueue.enqueue("non-retryable", "x");
		Await.until("the task is dead", WAIT, () -> deadCount("non-retryable") == 1);
		Map<String, Object> dead = jdbc.queryForMap("SELECT * FROM taskqueue_dead_task WHERE id = ?", id);
		assertThat(dead.get("attempts")).isEqualTo(1);
		assertThat((String) dead.get("error")).contains("NonRetryableTaskException: card declined");
	}

	@Test
	void unreadablePayloadGoesToTheDeadLettersWithoutRunningTheHandler() {
		UUID id = taskQueue.enqueue("echo", Map.of("name", "x", "count", "not a number"));
		Await.until("the task is dead", WAIT, () -> deadCount("echo") == 1);
		String error = jdbc.queryForObject("SELECT error FROM taskqueue_dead_task WHERE id = ?", String.class, id);
		assertThat(error)
			.startsWith("java.lang.IllegalArgumentException: Payload cannot be read as " + Greeting.class.getName())
			.contains("bean 'handlers' method Handlers.echo(Greeting, TaskContext)");
		assertThat(handlers.echoed).doesNotContainKey(id);
	}

	@Test
	void handlerDatabaseWorkCommitsWithTheCompletionOnly() {
		UUID ok = taskQueue.enqueue("writes", "ok");
		UUID fails = taskQueue.enqueue("writes", "fail");
		Await.until("one completes and the other is dead", WAIT,
				() -> deadCount("writes") == 1 && handlers.writesRuns.get() >= 2 && taskCount() == 0);
		assertThat(jdbc.queryForList("SELECT note FROM business WHERE note LIKE 'writes:%'", String.class))
			.containsExactly("writes:" + ok);
		assertThat(fails).isNotNull();
	}

	@Test
	void enqueueRejectsBadArgumentsAndWritesNothing() {
		assertThatThrownBy(() -> taskQueue.enqueue(null, "x")).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("queue");
		assertThatThrownBy(() -> taskQueue.enqueue("x; drop table y", "x")).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("'x; drop table y'");
		assertThatThrownBy(() -> taskQueue.enqueue("bad-input", null)).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("payload");
		assertThatThrownBy(() -> taskQueue.enqueue("bad-input", new Unwritable()))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("cannot be written as JSON");
		assertThatThrownBy(() -> taskQueue.enqueueAll(
				List.of(TaskRequest.of("bad-input", "fine"), TaskRequest.of("bad-input", new Unwritable()))))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("requests[1]");
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = 'bad-input'", Integer.class))
			.isZero();
	}

	@Test
	void enqueueAllReturnsTimeOrderedIdsInRequestOrder() {
		List<UUID> ids = taskQueue.enqueueAll(List.of(TaskRequest.of("echo", new Greeting("a", 1)),
				TaskRequest.of("echo", new Greeting("b", 2)), TaskRequest.of("echo", new Greeting("c", 3))));
		assertThat(ids).hasSize(3).doesNotHaveDuplicates();
		assertThat(ids).allSatisfy((id) -> assertThat(id.version()).isEqualTo(7));
		List<UUID> sorted = new ArrayList<>(ids);
		Collections.sort(sorted, (a, b) -> a.toString().compareTo(b.toString()));
		assertThat(sorted).isEqualTo(ids);
		Await.until("all three run", WAIT, () -> ids.stream().allMatch(handlers.echoed::containsKey));
		assertThat(handlers.echoed.get(ids.get(1)).payload()).isEqualTo(new Greeting("b", 2));
		assertThat(taskQueue.enqueueAll(List.of())).isEmpty();
	}

	private static int taskCount() {
		return jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class);
	}

	private static int deadCount(String queue) {
		return jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = ?", Integer.class, queue);
	}

	record Greeting(String name, int count) {
	}

	static class Unwritable {

		public String getValue() {
			throw new UnsupportedOperationException("not serialisable");
		}

	}

	record Handled(Object payload, TaskContext context, Instant at) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Handlers handlers(JdbcTemplate jdbc) {
			return new Handlers(jdbc);
		}

	}

	static class Handlers {

		final Map<UUID, Handled> echoed = new ConcurrentHashMap<>();

		final List<String> ordered = new CopyOnWriteArrayList<>();

		final Map<UUID, List<Integer>> flakyAttempts = new ConcurrentHashMap<>();

		final List<UUID> flakySucceeded = new CopyOnWriteArrayList<>();

		final AtomicInteger alwaysFailsAttempts = new AtomicInteger();

		final AtomicInteger writesRuns = new AtomicInteger();

		private final JdbcTemplate jdbc;

		Handlers(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "echo")
		void echo(Greeting greeting, TaskContext context) {
			this.echoed.put(context.id(), new Handled(greeting, context, Instant.now()));
		}

		@TaskHandler(queue = "ordered")
		public void ordered(String label) {
			this.ordered.add(label);
		}

		@TaskHandler(queue = "flaky")
		void flaky(String payload, TaskContext context) throws Exception {
			this.flakyAttempts.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>()).add(context.attempt());
			if (context.attempt() < 3) {
				throw new java.io.IOException("attempt " + context.attempt() + " fails");
			}
			this.flakySucceeded.add(context.id());
		}

		@TaskHandler(queue = "always-fails")
		void alwaysFails(Greeting greeting, TaskContext context) {
			this.alwaysFailsAttempts.incrementAndGet();
			throw new IllegalStateException("always fails on attempt " + context.attempt());
		}

		@TaskHandler(queue = "non-retryable", maxAttempts = 10)
		void nonRetryable(String payload) {
			throw new NonRetryableTaskException("card declined");
		}

		@TaskHandler(queue = "writes", maxAttempts = 2)
		void writes(String payload, TaskContext context) {
			this.writesRuns.incrementAndGet();
			this.jdbc.update("INSERT INTO business (note) VALUES (?)", "writes:" + context.id());
			if (payload.equals("fail")) {
				throw new IllegalStateException("fails after writing");
			}
		}

	}

}
