package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.DeadTask;
import dev.taskqueue.RetryPolicy;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.internal.support.StartupFailure;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link RetryPolicy} bean named {@code taskQueueRetryPolicy} decides every queue's retries, one named in
 * {@code @TaskHandler(retryPolicy = ...)} decides its queue's; the policy is asked only while attempts are left, and a {@code null} sends the task to the
 * dead letters at once.
 */
class RetryPolicyIntegrationTests {

	/** Attempts each task ran, by payload. */
	static final Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();

	/** What each policy was asked: policy name, payload, failed attempt, failure message. */
	static final List<String> asked = new CopyOnWriteArrayList<>();

	@Test
	void theApplicationsPolicyAndAHandlersOwnDecideRetries() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Policies.class), "taskqueue.retry.max-attempts=5")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			UUID twice = taskQueue.enqueue("plain", "twice");
			UUID own = taskQueue.enqueue("own", "own");
			Await.until("both tasks are dead", Duration.ofSeconds(30),
					() -> operations.deadTasks(null, 10, null).tasks().size() == 2);
			// The application's policy retries at once and gives up after the second attempt, of five allowed.
			assertThat(attempts.get("twice")).containsExactly(1, 2);
			// The handler's policy always retries: the queue's max-attempts ends it, the last attempt is not asked.
			assertThat(attempts.get("own")).containsExactly(1, 2, 3, 4, 5);
			assertThat(asked).filteredOn((line) -> line.contains(" twice "))
				.containsExactly("default twice 1 boom twice", "default twice 2 boom twice");
			assertThat(asked).filteredOn((line) -> line.contains(" own "))
				.containsExactly("own own 1 boom own", "own own 2 boom own", "own own 3 boom own",
						"own own 4 boom own");
			assertThat(operations.deadTasks(null, 10, null).tasks()).extracting(DeadTask::id)
				.containsExactlyInAnyOrder(twice, own);
		}
	}

	@Test
	void aHandlerThatNamesNoRetryPolicyBeanStopsTheStart() {
		assertThatThrownBy(() -> TestApplications.start(TestDatabase.createDatabase(), List.of(LostHandler.class)))
			.hasRootCauseInstanceOf(StartupFailure.class)
			.rootCause()
			.hasMessageContaining("names retry policy 'nowhere' (@TaskHandler(retryPolicy = ...)), but the "
					+ "application has no bean of that name");
	}

	@Test
	void policiesThatNoHandlerNamesChangeNothing() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(PlainHandler.class, TwoPolicies.class), "taskqueue.retry.max-attempts=3",
				"taskqueue.retry.backoff.initial-delay=0s")) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			context.getBean(TaskQueue.class).enqueue("plain", "unnamed");
			Await.until("the task is dead", Duration.ofSeconds(30),
					() -> operations.deadTasks(null, 10, null).tasks().size() == 1);
			assertThat(attempts.get("unnamed")).containsExactly(1, 2, 3);
			assertThat(asked).noneMatch((line) -> line.contains(" unnamed "));
		}
	}

	private static void failed(String payload, TaskContext context) {
		attempts.computeIfAbsent(payload, (key) -> new CopyOnWriteArrayList<>()).add(context.attempt());
		throw new IllegalStateException("boom " + payload);
	}

	static class PlainHandler {

		@TaskHandler(queue = "plain")
		void plain(String payload, TaskContext context) {
			failed(payload, context);
		}

	}

	static class OwnHandler {

		@TaskHandler(queue = "own", retryPolicy = "alwaysAgain")
		void own(String payload, TaskContext context) {
			failed(payload, context);
		}

	}

	static class LostHandler {

		@TaskHandler(queue = "lost", retryPolicy = "nowhere")
		void lost(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Policies {

		@Bean
		PlainHandler plainHandler() {
			return new PlainHandler();
		}

		@Bean
		OwnHandler ownHandler() {
			return new OwnHandler();
		}

		@Bean
		RetryPolicy taskQueueRetryPolicy() {
			return (task, failure) -> {
				asked.add("default " + payloadOf(failure) + " " + task.attempt() + " " + failure.getMessage());
				return (task.attempt() < 2) ? Duration.ZERO : null;
			};
		}

		@Bean
		RetryPolicy alwaysAgain() {
			return (task, failure) -> {
				asked.add("own " + payloadOf(failure) + " " + task.attempt() + " " + failure.getMessage());
				return Duration.ofMillis(-5); // taken as no delay
			};
		}

		private static String payloadOf(Throwable failure) {
			return failure.getMessage().substring("boom ".length());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoPolicies {

		@Bean
		RetryPolicy first() {
			return (task, failure) -> {
				asked.add("first " + failure.getMessage().substring("boom ".length()) + " " + task.attempt());
				return null;
			};
		}

		@Bean
		RetryPolicy second() {
			return (task, failure) -> {
				asked.add("second " + failure.getMessage().substring("boom ".length()) + " " + task.attempt());
				return null;
			};
		}

	}

}
