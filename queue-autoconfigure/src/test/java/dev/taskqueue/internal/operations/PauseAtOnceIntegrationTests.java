package dev.taskqueue.internal.operations;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
 * A pause made through an instance holds on that instance at once, not at its next heartbeat: heartbeats here are
 * a minute apart, so nothing but the pause itself can stop the tasks.
 */
class PauseAtOnceIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	/** Many claim polls: a queue that still claimed would have run its tasks by then. */
	private static final Duration PAUSED_FOR = Duration.ofSeconds(1);

	private static final String[] SLOW_HEARTBEAT = { "taskqueue.worker.heartbeat-interval=1m",
			"taskqueue.worker.session-timeout=5m", "taskqueue.queues.paused-here.concurrency=1" };

	@Test
	void aPausedQueueRunsNothingEnqueuedAfterThePauseUntilResumed() throws Exception {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), SLOW_HEARTBEAT)) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			Handler handler = context.getBean(Handler.class);
			handler.release.countDown();
			operations.pause("paused-here");
			List<UUID> ids = context.getBean(TaskQueue.class).enqueueAll(List.of(
					TaskRequest.of("paused-here", "a"), TaskRequest.of("paused-here", "b")));
			Thread.sleep(PAUSED_FOR.toMillis());
			assertThat(handler.handled).isEmpty();
			assertThat(unclaimed(context)).isEqualTo(2);

			operations.resume("paused-here");
			Await.until("both run once resumed", WAIT, () -> handler.handled.size() == 2);
			assertThat(handler.handled).containsExactlyInAnyOrderElementsOf(ids);
		}
	}

	@Test
	void claimedTasksThatHaveNotStartedAreGivenBackByThePause() throws Exception {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), SLOW_HEARTBEAT)) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			Handler handler = context.getBean(Handler.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			UUID running = taskQueue.enqueue("paused-here", "running");
			assertThat(handler.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			UUID waiting = taskQueue.enqueue("paused-here", "waiting");
			Await.until("the second task is claimed while the first runs", WAIT, () -> claimed(context) == 2);

			operations.pause("paused-here");
			// Given back by the claim loop, which the pause wakes: well within a second, not at a heartbeat (a minute
			// away); 20 s leaves a loaded machine room.
			Await.until("the waiting task is given back", WAIT, () -> claimed(context) == 1);
			handler.release.countDown();
			Await.until("the running task completes", WAIT, () -> handler.handled.contains(running));
			Thread.sleep(PAUSED_FOR.toMillis());
			assertThat(handler.handled).containsExactly(running);
			assertThat(attemptOf(context, waiting)).as("the given-back task's attempt").isZero();

			operations.resume("paused-here");
			Await.until("the given-back task runs once resumed", WAIT, () -> handler.handled.contains(waiting));
			assertThat(handler.handled).containsExactlyInAnyOrder(running, waiting);
		}
	}

	private static int unclaimed(ConfigurableApplicationContext context) {
		return context.getBean(JdbcTemplate.class)
			.queryForObject("SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NULL", Integer.class);
	}

	private static int claimed(ConfigurableApplicationContext context) {
		return context.getBean(JdbcTemplate.class)
			.queryForObject("SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NOT NULL", Integer.class);
	}

	private static int attemptOf(ConfigurableApplicationContext context, UUID id) {
		return context.getBean(JdbcTemplate.class)
			.queryForObject("SELECT attempt FROM taskqueue_task WHERE id = ?", Integer.class, id);
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Handler handler() {
			return new Handler();
		}

	}

	static class Handler {

		final Set<UUID> handled = ConcurrentHashMap.newKeySet();

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		@TaskHandler(queue = "paused-here")
		void handle(String payload, dev.taskqueue.TaskContext context) throws InterruptedException {
			this.started.countDown();
			this.release.await();
			this.handled.add(context.id());
		}

	}

}
