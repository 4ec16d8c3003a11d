package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A handler that never returns is cut off by its queue's timeout and does not hold its claim or its unit of
 * concurrency; a handler that is merely long keeps its claim through heartbeats and completes once.
 */
class HandlerTimeoutIntegrationTests {

	static volatile boolean releaseHungHandlers;

	static final Map<UUID, List<Integer>> longRuns = new ConcurrentHashMap<>();

	@AfterAll
	static void releaseHungThreads() {
		releaseHungHandlers = true;
	}

	@Test
	void hungHandlerTimesOutIsRetriedThenDeadAndTheQueueKeepsFlowing() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(HangingConfig.class), "taskqueue.queues.hangs.timeout=500ms",
				"taskqueue.queues.hangs.max-attempts=2", "taskqueue.queues.hangs.concurrency=1",
				"taskqueue.worker.shutdown-timeout=1s")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			UUID hung = taskQueue.enqueue("hangs", "hang");
			Await.until("the hung task is on its first attempt", Duration.ofSeconds(10), () -> jdbc
				.queryForObject("SELECT count(*) FROM taskqueue_task WHERE attempt = 1", Integer.class) == 1);
			UUID ok = taskQueue.enqueue("hangs", "ok");
			Await.until("the hung task is dead and the other one done", Duration.ofSeconds(20),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			Map<String, Object> dead = jdbc.queryForMap("SELECT * FROM taskqueue_dead_task");
			assertThat(dead.get("id")).isEqualTo(hung);
			assertThat(dead.get("attempts")).isEqualTo(2);
			assertThat((String) dead.get("error"))
				.startsWith("dev.taskqueue.HandlerTimeoutException: The handler did not finish "
						+ "within PT0.5S (taskqueue.queues.hangs.timeout); its thread was interrupted")
				.contains("HangingHandler.handle");
			assertThat(HangingHandler.done).containsExactly(ok);
		}
	}

	@Test
	void aShortTimeoutFiresOnTimeWhileAHandlerWithALongerOneRuns() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(HangingConfig.class, PatientConfig.class), "taskqueue.queues.hangs.timeout=300ms",
				"taskqueue.queues.hangs.max-attempts=1", "taskqueue.queues.patient.timeout=10m",
				"taskqueue.worker.shutdown-timeout=1s")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			taskQueue.enqueue("patient", "wait");
			Await.until("the patient handler runs", Duration.ofSeconds(10), () -> PatientHandler.running);
			// The timeout watch now sleeps towards the patient handler's deadline, ten minutes away.
			UUID hung = taskQueue.enqueue("hangs", "hang");
			long start = System.nanoTime();
			// Far sooner than the patient handler's ten minutes, with room for a loaded machine (5 s was tight).
			Await.until("the hung task is dead", Duration.ofSeconds(60), () -> jdbc
				.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class, hung) == 1);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
			assertThat(PatientHandler.running).as("the patient handler is still running").isTrue();
			PatientHandler.release = true;
			Await.until("the patient task is done", Duration.ofSeconds(10), () -> jdbc
				.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = 'patient'", Integer.class) == 0);
		}
	}

	@Test
	void aHandlerThatReturnsAfterItsTimeoutLeavesNoSecondOutcomeAndNoWork() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(OverrunConfig.class), "taskqueue.queues.overruns.timeout=300ms",
				"taskqueue.queues.overruns.max-attempts=3")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			UUID id = context.getBean(TaskQueue.class).enqueue("overruns", "x");
			Await.until("the task is done", Duration.ofSeconds(20),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			Await.until("the first attempt's handler has returned", Duration.ofSeconds(10),
					() -> OverrunHandler.returned.contains(1));
			// The listener hears of the second attempt's completion after it commits, so after the table emptied.
			Await.until("both attempts' outcomes are heard", Duration.ofSeconds(10),
					() -> OutcomeRecorder.outcomes.getOrDefault(id, List.of()).size() >= 2);
			Thread.sleep(200); // room for a third outcome, were there one
			assertThat(jdbc.queryForList("SELECT attempt FROM overrun_work WHERE task_id = ?", Integer.class, id))
				.as("the overrunning attempt's work rolled back").containsExactly(2);
			assertThat(OutcomeRecorder.outcomes.get(id)).containsExactly("failed 1", "completed 2");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void handlerLongerThanTheSessionTimeoutKeepsItsClaimAndCompletesOnce() {
		String url = TestDatabase.createDatabase();
		// A session timeout of 3 s, not 1: the two instances share a JVM, and a pause of it (load, a collection) as
		// long as the timeout lets the first to beat again expire the other's live session, and run its task twice.
		String[] settings = { "taskqueue.worker.heartbeat-interval=200ms", "taskqueue.worker.session-timeout=3s" };
		try (ConfigurableApplicationContext first = TestApplications.start(url, List.of(LongConfig.class), settings);
				ConfigurableApplicationContext second = TestApplications.start(url, List.of(LongConfig.class),
						settings)) {
			UUID id = first.getBean(TaskQueue.class).enqueue("long", 7000); // more than two session timeouts
			JdbcTemplate jdbc = first.getBean(JdbcTemplate.class);
			Await.until("the long task is done", Duration.ofSeconds(40),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(longRuns.get(id)).containsExactly(1);
			assertThat(second.getBean(JdbcTemplate.class).queryForObject("SELECT count(*) FROM taskqueue_dead_task",
					Integer.class)).isZero();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class HangingConfig {

		@Bean
		HangingHandler hangingHandler() {
			return new HangingHandler();
		}

	}

	static class HangingHandler {

		static final List<UUID> done = new CopyOnWriteArrayList<>();

		@TaskHandler(queue = "hangs")
		void handle(String payload, TaskContext context) {
			while (payload.equals("hang") && !releaseHungHandlers) {
				try {
					Thread.sleep(100);
				}
				catch (InterruptedException ex) {
					// a hung handler ignores interrupts
				}
			}
			done.add(context.id());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PatientConfig {

		@Bean
		PatientHandler patientHandler() {
			return new PatientHandler();
		}

	}

	static class PatientHandler {

		static volatile boolean running;

		static volatile boolean release;

		@TaskHandler(queue = "patient")
		void handle(String payload) throws InterruptedException {
			running = true;
			try {
				while (!release && !releaseHungHandlers) {
					Thread.sleep(20);
				}
			}
			finally {
				running = false;
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OverrunConfig {

		@Bean
		OverrunHandler overrunHandler(JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE overrun_work (task_id uuid NOT NULL, attempt int NOT NULL)");
			return new OverrunHandler(jdbc);
		}

		@Bean
		OutcomeRecorder outcomeRecorder() {
			return new OutcomeRecorder();
		}

	}

	static class OverrunHandler {

		static final List<Integer> returned = new CopyOnWriteArrayList<>();

		private final JdbcTemplate jdbc;

		OverrunHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "overruns")
		void handle(String payload, TaskContext context) {
			this.jdbc.update("INSERT INTO overrun_work VALUES (?, ?)", context.id(), context.attempt());
			if (context.attempt() == 1) {
				long until = System.nanoTime() + Duration.ofMillis(1000).toNanos();
				while (System.nanoTime() < until) {
					try {
						Thread.sleep(50);
					}
					catch (InterruptedException ex) {
						// ignores the timeout's interrupt, then returns late
					}
				}
			}
			returned.add(context.attempt());
		}

	}

	static class OutcomeRecorder implements TaskQueueListener {

		static final Map<UUID, List<String>> outcomes = new ConcurrentHashMap<>();

		@Override
		public void completed(TaskContext task, Duration duration) {
			add(task, "completed");
		}

		@Override
		public void failed(TaskContext task, Duration duration, Throwable error, boolean dead) {
			add(task, dead ? "dead" : "failed");
		}

		@Override
		public void claimLost(TaskContext task) {
			add(task, "claim lost");
		}

		private static void add(TaskContext task, String outcome) {
			outcomes.computeIfAbsent(task.id(), (id) -> new CopyOnWriteArrayList<>()).add(outcome + " " + task.attempt());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LongConfig {

		@Bean
		LongHandler longHandler() {
			return new LongHandler();
		}

	}

	static class LongHandler {

		@TaskHandler(queue = "long")
		void handle(int millis, TaskContext context) throws InterruptedException {
			longRuns.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>()).add(context.attempt());
			Thread.sleep(millis);
		}

	}

}
