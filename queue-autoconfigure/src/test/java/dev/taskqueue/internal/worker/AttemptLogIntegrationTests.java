package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.DeadTask;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task's story as the worker writes it in each completion mode: every failed attempt with its instance and
 * outcome, the completed one in the history, the last ten of a task that died after twelve, and nothing for a task
 * that never failed.
 */
class AttemptLogIntegrationTests {

	private static final List<String> TWELVE = List.of("failed", "failed", "failed", "failed", "failed", "failed",
			"failed", "failed", "failed", "dead");

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "transactional", "group-commit", "batched" })
	void eachAttemptIsLoggedWithItsInstanceAndOutcome(String mode) {
		String queue = mode.equals("batched") ? "story-batched" : "story";
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "spring.application.name=story-app", "taskqueue.history.enabled=true",
				"taskqueue.retry.backoff.initial-delay=10ms", "taskqueue.retry.backoff.max-delay=20ms",
				"taskqueue.retry.backoff.jitter=0", "taskqueue.queues." + queue + ".max-attempts=3",
				"taskqueue.queues." + queue + "-long.max-attempts=12",
				"taskqueue.queues." + queue + ".group-commit-size=" + (mode.equals("group-commit") ? 4 : 1),
				"taskqueue.queues." + queue + ".concurrency=4")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			List<UUID> fine = new ArrayList<>();
			for (int n = 0; n < 5; n++) {
				fine.add(taskQueue.enqueue(queue, "fine"));
			}
			UUID twice = taskQueue.enqueue(queue, "fail-twice");
			UUID three = taskQueue.enqueue(queue, "always");
			UUID twelve = taskQueue.enqueue(queue + "-long", "always");
			Await.until("every task is done or dead", Duration.ofSeconds(30),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);

			List<DeadTask.Attempt> story = operations.attempts(twice);
			assertThat(story).extracting(DeadTask.Attempt::attempt).containsExactly(1, 2, 3);
			assertThat(story).extracting(DeadTask.Attempt::outcome).containsExactly("failed", "failed", "completed");
			assertThat(story).allSatisfy((attempt) -> assertThat(attempt.instance()).startsWith("story-app "));
			assertThat(story).extracting((attempt) -> firstLine(attempt.error()))
				.containsExactly("java.lang.IllegalStateException: attempt 1 fails",
						"java.lang.IllegalStateException: attempt 2 fails", null);
			assertThat(jdbc.queryForObject("SELECT attempts FROM taskqueue_history WHERE id = ?", Integer.class, twice))
				.isEqualTo(3);

			DeadTask dead = operations.deadTask(three).orElseThrow();
			assertThat(dead.attempts()).isEqualTo(3);
			assertThat(dead.attemptLog()).extracting(DeadTask.Attempt::outcome)
				.containsExactly("failed", "failed", "dead");
			DeadTask deadLong = operations.deadTask(twelve).orElseThrow();
			assertThat(deadLong.attempts()).isEqualTo(12);
			assertThat(deadLong.attemptLog()).extracting(DeadTask.Attempt::attempt)
				.containsExactly(3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
			assertThat(deadLong.attemptLog()).extracting(DeadTask.Attempt::outcome).isEqualTo(TWELVE);

			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_history WHERE attempt_log IS NULL",
					Integer.class)).as("the tasks that never failed have no log").isEqualTo(fine.size());
			assertThat(fine).allSatisfy((id) -> assertThat(operations.attempts(id)).isEmpty());
		}
	}

	private static String firstLine(String error) {
		return (error != null) ? error.lines().findFirst().orElse("") : null;
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		StoryHandlers storyHandlers() {
			return new StoryHandlers();
		}

	}

	static class StoryHandlers {

		@TaskHandler(queue = "story")
		void story(String payload, TaskContext context) {
			run(payload, context);
		}

		@TaskHandler(queue = "story-long")
		void storyLong(String payload, TaskContext context) {
			run(payload, context);
		}

		@TaskHandler(queue = "story-batched", completion = TaskHandler.Completion.BATCHED)
		void batched(String payload, TaskContext context) {
			run(payload, context);
		}

		@TaskHandler(queue = "story-batched-long", completion = TaskHandler.Completion.BATCHED)
		void batchedLong(String payload, TaskContext context) {
			run(payload, context);
		}

		private static void run(String payload, TaskContext context) {
			if (payload.equals("always") || (payload.equals("fail-twice") && context.attempt() <= 2)) {
				throw new IllegalStateException("attempt " + context.attempt() + " fails");
			}
		}

	}

}
