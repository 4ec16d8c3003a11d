package dev.taskqueue.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
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
				.startsWith("dev.taskqueue.worker.TaskDispatcher$HandlerTimeoutException: The handler did not finish "
						+ "within PT0.5S (taskqueue.queues.hangs.timeout); its thread was interrupted")
				.contains("HangingHandler.handle");
			assertThat(HangingHandler.done).containsExactly(ok);
		}
	}

	@Test
	void handlerLongerThanTheSessionTimeoutKeepsItsClaimAndCompletesOnce() {
		String url = TestDatabase.createDatabase();
		String[] settings = { "taskqueue.worker.heartbeat-interval=200ms", "taskqueue.worker.session-timeout=1s" };
		try (ConfigurableApplicationContext first = TestApplications.start(url, List.of(LongConfig.class), settings);
				ConfigurableApplicationContext second = TestApplications.start(url, List.of(LongConfig.class),
						settings)) {
			UUID id = first.getBean(TaskQueue.class).enqueue("long", 3000);
			JdbcTemplate jdbc = first.getBean(JdbcTemplate.class);
			Await.until("the long task is done", Duration.ofSeconds(20),
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
