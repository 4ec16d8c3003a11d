package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With LISTEN/NOTIFY a task enqueued by another instance starts long before the next poll; without it, it waits
 * for the poll.
 */
class NotifyIntegrationTests {

	static final Map<UUID, Long> startedAt = new ConcurrentHashMap<>();

	/** How soon a notified worker starts a task: a small part of the poll interval (10 minutes), room for load. */
	private static final Duration NOTIFIED = Duration.ofSeconds(20);

	@Test
	void notifiedWorkerStartsTasksWithoutWaitingForThePoll() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext worker = TestApplications.start(url, List.of(Config.class),
				"taskqueue.worker.poll-interval=10m");
				ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
						"taskqueue.worker.enabled=false")) {
			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			TransactionTemplate transaction = new TransactionTemplate(producer.getBean(PlatformTransactionManager.class));
			for (int i = 0; i < 20; i++) {
				long committedAt = System.nanoTime();
				UUID id = transaction.execute((status) -> taskQueue.enqueue("wake", "in a transaction"));
				// Within NOTIFIED, not 2 s: a loaded machine can take longer, and a poll would take ten minutes.
				Await.until("the task starts", NOTIFIED, () -> startedAt.containsKey(id));
				assertThat(Duration.ofNanos(startedAt.get(id) - committedAt)).isLessThan(NOTIFIED);
			}
			UUID withoutTransaction = taskQueue.enqueue("wake", "auto-commit");
			Await.until("the auto-committed task starts", NOTIFIED, () -> startedAt.containsKey(withoutTransaction));
			List<UUID> all = taskQueue
				.enqueueAll(List.of(TaskRequest.of("wake", "all one"), TaskRequest.of("wake", "all two")));
			Await.until("the tasks of enqueueAll start", NOTIFIED, () -> startedAt.keySet().containsAll(all));
		}
	}

	@Test
	void withoutNotifyTheWorkerWaitsForThePoll() throws InterruptedException {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext worker = TestApplications.start(url, List.of(Config.class),
				"taskqueue.worker.poll-interval=10m", "taskqueue.notify.enabled=false")) {
			Thread.sleep(2_000); // past the first poll at start, even when a loaded machine starts the claim loop late
			UUID id = worker.getBean(TaskQueue.class).enqueue("wake", "unnoticed");
			Thread.sleep(2_000);
			assertThat(startedAt).doesNotContainKey(id);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		WakeHandler wakeHandler() {
			return new WakeHandler();
		}

	}

	static class WakeHandler {

		@TaskHandler(queue = "wake")
		void handle(String payload, TaskContext context) {
			startedAt.put(context.id(), System.nanoTime());
		}

	}

}
