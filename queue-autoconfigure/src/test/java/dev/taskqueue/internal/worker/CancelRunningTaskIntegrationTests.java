package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances on one database; an operator cancels, through one instance, tasks that run on another: a handler
 * that swallows every interrupt, a handler that checks {@link TaskContext#isCancelled()} between steps, and a handler
 * that sleeps and so is woken by the interrupt. Each is told within seconds where the database has
 * {@code LISTEN/NOTIFY} (heartbeats a minute apart, so only the notification can tell it), within a few heartbeats
 * where it has not; each ends cancelled once: its work rolled back, not retried, not dead, kept in the history with
 * who asked.
 */
class CancelRunningTaskIntegrationTests {

	static final List<String> QUEUES = List.of("stubborn", "polite", "sleeper");

	/** Which instance runs each task, by task id. */
	static final Map<UUID, Integer> runBy = new ConcurrentHashMap<>();

	/** When each handler first noticed the cancel ({@link System#nanoTime()}), by task id. */
	static final Map<UUID, Long> noticedAt = new ConcurrentHashMap<>();

	/** How many times each task's handler started. */
	static final Map<UUID, AtomicInteger> starts = new ConcurrentHashMap<>();

	static final AtomicInteger cancelled = new AtomicInteger();

	static final AtomicInteger otherOutcomes = new AtomicInteger();

	/** Lets the stubborn handler return once the test has seen it swallow the interrupt. */
	static volatile CountDownLatch releaseStubborn = new CountDownLatch(1);

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@BeforeEach
	void reset() {
		runBy.clear();
		groupTx.clear();
		noticedAt.clear();
		starts.clear();
		cancelled.set(0);
		otherOutcomes.set(0);
		releaseStubborn = new CountDownLatch(1);
	}

	@AfterEach
	void close() {
		releaseStubborn.countDown();
		this.instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void aCancelNotifiesTheInstanceRunningTheTaskLongBeforeAHeartbeat() throws Exception {
		// Heartbeats a minute apart (the first a minute after the start): only the NOTIFY can tell the instance within
		// 5 s, which leaves a loaded machine room (1 s was once too tight).
		cancelRunningTasksOnAnotherInstance(Duration.ofSeconds(5), "taskqueue.worker.heartbeat-interval=1m",
				"taskqueue.worker.session-timeout=3m");
	}

	@Test
	void withoutNotifyTheHeartbeatTellsTheInstanceRunningTheTask() throws Exception {
		// As on CockroachDB and YugabyteDB: no LISTEN/NOTIFY, a heartbeat every second; nothing else would tell the
		// instance. A few heartbeats' time, for a loaded machine.
		cancelRunningTasksOnAnotherInstance(Duration.ofSeconds(6), "taskqueue.notify.enabled=false",
				"taskqueue.worker.heartbeat-interval=1s", "taskqueue.worker.session-timeout=10s");
	}

	private void cancelRunningTasksOnAnotherInstance(Duration within, String... settings) throws Exception {
		String url = TestDatabase.createDatabase();
		for (int i = 0; i < 3; i++) {
			List<String> properties = new ArrayList<>(List.of(settings));
			properties.addAll(List.of("test.instance=" + i, "taskqueue.history.enabled=true",
					"taskqueue.worker.timeout=60s"));
			this.instances.add(TestApplications.start(url, List.of(Handlers.class), properties.toArray(String[]::new)));
			if (i == 0) {
				this.instances.get(0).getBean(JdbcTemplate.class)
					.execute("CREATE TABLE business (task_id uuid NOT NULL, step int NOT NULL)");
			}
		}
		JdbcTemplate jdbc = this.instances.get(0).getBean(JdbcTemplate.class);
		TaskQueue taskQueue = this.instances.get(0).getBean(TaskQueue.class);
		List<UUID> ids = new ArrayList<>();
		for (String queue : QUEUES) {
			ids.add(taskQueue.enqueue(queue, "work"));
		}
		Await.until("every handler has started", Duration.ofSeconds(20),
				() -> ids.stream().allMatch(runBy::containsKey));
		String[] names = { "alice", "bob", "carol" };
		long[] requestedAt = new long[3];
		for (int i = 0; i < 3; i++) {
			UUID id = ids.get(i);
			int other = (runBy.get(id) + 1) % 3; // never the instance that runs it
			requestedAt[i] = System.nanoTime();
			assertThat(this.instances.get(other).getBean(TaskQueueOperations.class).cancel(id, names[i])).isTrue();
		}
		Await.until("every handler noticed its cancel", Duration.ofSeconds(20),
				() -> ids.stream().allMatch(noticedAt::containsKey));
		for (int i = 0; i < 3; i++) {
			assertThat(Duration.ofNanos(noticedAt.get(ids.get(i)) - requestedAt[i])).as(QUEUES.get(i))
				.isLessThan(within);
		}
		// The stubborn handler swallowed the interrupt and still runs; its task is cancelled all the same.
		assertThat(this.instances.get(0).getBean(TaskQueueOperations.class).cancel(ids.get(0))).isFalse();
		releaseStubborn.countDown();
		Await.until("every cancelled attempt has ended", Duration.ofSeconds(10), () -> cancelled.get() == 3
				&& jdbc.queryForObject("SELECT count(*) FROM taskqueue_cancel_request", Integer.class) == 0);

		assertThat(jdbc.queryForObject("SELECT count(*) FROM business", Integer.class)).isZero(); // all rolled back
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
		assertThat(jdbc.queryForList("SELECT id || ' ' || outcome || ' ' || cancelled_by || ' ' || attempts "
				+ "FROM taskqueue_history ORDER BY cancelled_by", String.class))
			.containsExactly(ids.get(0) + " cancelled alice 1", ids.get(1) + " cancelled bob 1",
					ids.get(2) + " cancelled carol 1");
		for (UUID id : ids) {
			assertThat(starts.get(id)).hasValue(1);
		}
		assertThat(otherOutcomes).hasValue(0);
		assertThat(cancelled).hasValue(3);
		// Nothing runs again: give the instances a few polls to prove it.
		Thread.sleep(300);
		assertThat(starts.values().stream().mapToInt(AtomicInteger::get).sum()).isEqualTo(3);
	}

	@Test
	void aCancelledTaskOfAGroupRollsBackAloneAndABatchedOneIsNotCompleted() throws Exception {
		String url = TestDatabase.createDatabase();
		this.instances.add(TestApplications.start(url, List.of(GroupHandlers.class), "test.instance=0",
				"taskqueue.queues.grouped.group-commit-size=5", "taskqueue.queues.grouped.concurrency=1",
				"taskqueue.worker.group-commit-max-delay=20s", "taskqueue.worker.timeout=60s"));
		ConfigurableApplicationContext instance = this.instances.get(0);
		JdbcTemplate jdbc = instance.getBean(JdbcTemplate.class);
		jdbc.execute("CREATE TABLE business (task_id uuid NOT NULL, step int NOT NULL, tx bigint)");
		TaskQueue taskQueue = instance.getBean(TaskQueue.class);
		// One transaction, so that one claim takes all five: the quick ones first (priority), the slow one last.
		List<UUID> quick = new ArrayList<>();
		UUID[] slow = new UUID[1];
		new TransactionTemplate(instance.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> {
				for (int i = 0; i < 4; i++) {
					quick.add(taskQueue.enqueue(TaskRequest.of("grouped", "quick").withPriority(10)));
				}
				slow[0] = taskQueue.enqueue(TaskRequest.of("grouped", "slow"));
			});
		UUID batched = taskQueue.enqueue("batched", "slow");
		Await.until("both slow handlers have started", Duration.ofSeconds(20),
				() -> runBy.containsKey(slow[0]) && runBy.containsKey(batched));
		TaskQueueOperations operations = instance.getBean(TaskQueueOperations.class);
		assertThat(operations.cancel(slow[0], "dave")).isTrue();
		assertThat(operations.cancel(batched)).isTrue();
		Await.until("both cancelled attempts have ended", Duration.ofSeconds(10), () -> cancelled.get() == 2);
		Await.until("the group's other tasks have committed", Duration.ofSeconds(10),
				() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);

		// The four quick tasks committed once each, in the same transaction as the slow one ran in.
		assertThat(jdbc.queryForList("SELECT task_id FROM business", UUID.class))
			.containsExactlyInAnyOrderElementsOf(quick);
		assertThat(jdbc.queryForObject("SELECT count(DISTINCT tx) FROM business", Integer.class)).isOne();
		assertThat(jdbc.queryForObject("SELECT min(tx) FROM business", Long.class)).isEqualTo(groupTx.get(slow[0]));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_cancel_request", Integer.class)).isZero();
		assertThat(starts.get(slow[0])).hasValue(1);
		assertThat(starts.get(batched)).hasValue(1);
		assertThat(cancelled).hasValue(2);
		assertThat(otherOutcomes).hasValue(4); // the quick ones' completions
	}

	@Test
	void aCancelThatComesBeforeTheWordEndsTheTaskAsCancelledAtItsCompletion() throws Exception {
		String url = TestDatabase.createDatabase();
		// No NOTIFY and no heartbeat in time: the handler returns before its instance can hear of the cancel, and
		// only the completion's fence, which finds the task gone, tells.
		this.instances.add(TestApplications.start(url, List.of(GroupHandlers.class), "test.instance=0",
				"taskqueue.notify.enabled=false", "taskqueue.worker.heartbeat-interval=20s",
				"taskqueue.worker.session-timeout=60s"));
		ConfigurableApplicationContext instance = this.instances.get(0);
		JdbcTemplate jdbc = instance.getBean(JdbcTemplate.class);
		jdbc.execute("CREATE TABLE business (task_id uuid NOT NULL, step int NOT NULL, tx bigint)");
		operations = instance.getBean(TaskQueueOperations.class);
		UUID id = instance.getBean(TaskQueue.class).enqueue("self-cancelling", "work");
		Await.until("its attempt has ended", Duration.ofSeconds(20), () -> cancelled.get() + otherOutcomes.get() > 0);

		assertThat(cancelled).hasValue(1);
		assertThat(otherOutcomes).hasValue(0); // not a lost claim, not a failure
		assertThat(starts.get(id)).hasValue(1);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM business", Integer.class)).isZero();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
		Await.until("its request is gone", Duration.ofSeconds(5),
				() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_cancel_request", Integer.class) == 0);
	}

	/** What the self-cancelling handler cancels through. */
	static volatile TaskQueueOperations operations;

	/** The transaction each grouped handler ran in, by task id. */
	static final Map<UUID, Long> groupTx = new ConcurrentHashMap<>();

	@Configuration(proxyBeanMethods = false)
	static class GroupHandlers {

		@Bean
		GroupedHandlers groupedHandlers(JdbcTemplate jdbc) {
			return new GroupedHandlers(jdbc);
		}

		@Bean
		TaskQueueListener outcomeCounter() {
			return new Handlers().outcomeCounter();
		}

	}

	static class GroupedHandlers {

		private final JdbcTemplate jdbc;

		GroupedHandlers(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "grouped")
		void grouped(String payload, TaskContext context) throws InterruptedException {
			long tx = this.jdbc.queryForObject("SELECT txid_current()", Long.class);
			groupTx.put(context.id(), tx);
			this.jdbc.update("INSERT INTO business (task_id, step, tx) VALUES (?, 0, ?)", context.id(), tx);
			starts.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
			runBy.put(context.id(), 0);
			if (payload.equals("slow")) {
				Thread.sleep(30_000);
			}
		}

		/** Has another thread cancel its task (on its own connection), then returns at once. */
		@TaskHandler(queue = "self-cancelling")
		void selfCancelling(String payload, TaskContext context) throws InterruptedException {
			starts.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
			this.jdbc.update("INSERT INTO business (task_id, step) VALUES (?, 0)", context.id());
			Thread canceller = new Thread(() -> operations.cancel(context.id(), "the handler"));
			canceller.start();
			canceller.join();
		}

		@TaskHandler(queue = "batched", completion = TaskHandler.Completion.BATCHED)
		void batched(String payload, TaskContext context) throws InterruptedException {
			starts.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
			runBy.put(context.id(), 0);
			Thread.sleep(30_000);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		@Bean
		CancellableHandlers cancellableHandlers(JdbcTemplate jdbc, @Value("${test.instance}") int instance) {
			return new CancellableHandlers(jdbc, instance);
		}

		@Bean
		TaskQueueListener outcomeCounter() {
			return new TaskQueueListener() {

				@Override
				public void cancelled(TaskContext task, Duration duration) {
					cancelled.incrementAndGet();
				}

				@Override
				public void completed(TaskContext task, Duration duration) {
					otherOutcomes.incrementAndGet();
				}

				@Override
				public void failed(TaskContext task, Duration duration, Throwable error, boolean dead) {
					otherOutcomes.incrementAndGet();
				}

				@Override
				public void claimLost(TaskContext task) {
					otherOutcomes.incrementAndGet();
				}

			};
		}

	}

	static class CancellableHandlers {

		private final JdbcTemplate jdbc;

		private final int instance;

		CancellableHandlers(JdbcTemplate jdbc, int instance) {
			this.jdbc = jdbc;
			this.instance = instance;
		}

		private void started(TaskContext context) {
			this.jdbc.update("INSERT INTO business (task_id, step) VALUES (?, 0)", context.id());
			starts.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
			runBy.put(context.id(), this.instance);
		}

		/** Swallows every interrupt and returns normally once the test lets it. */
		@TaskHandler(queue = "stubborn")
		void stubborn(String payload, TaskContext context) {
			started(context);
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (System.nanoTime() < end) {
				try {
					if (releaseStubborn.await(10, TimeUnit.MILLISECONDS)) {
						return;
					}
				}
				catch (InterruptedException ex) {
					noticedAt.putIfAbsent(context.id(), System.nanoTime()); // and goes on
				}
			}
		}

		/** Works in steps that no interrupt cuts short, asking between them whether it was cancelled. */
		@TaskHandler(queue = "polite")
		void polite(String payload, TaskContext context) {
			started(context);
			for (int step = 1; step < 3000; step++) {
				if (context.isCancelled()) {
					noticedAt.put(context.id(), System.nanoTime());
					return; // returns normally: the work of its steps rolls back all the same
				}
				this.jdbc.queryForObject("SELECT pg_sleep(0.01)::text", String.class);
				this.jdbc.update("INSERT INTO business (task_id, step) VALUES (?, ?)", context.id(), step);
			}
		}

		/** Waits, interruptibly: the interrupt ends it with an exception, which is no failure. */
		@TaskHandler(queue = "sleeper")
		void sleeper(String payload, TaskContext context) throws InterruptedException {
			started(context);
			try {
				Thread.sleep(30_000);
			}
			finally {
				noticedAt.put(context.id(), System.nanoTime());
			}
		}

	}

}
