package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pool that hands out connections with auto-commit off (a common JPA tuning) still gets its claims, heartbeats
 * and outcomes committed: the worker then wraps its own statements in transactions.
 */
class NoAutoCommitIntegrationTests {

	static final Set<UUID> handled = ConcurrentHashMap.newKeySet();

	@Test
	void workerCommitsItsOwnStatementsWhenThePoolDoesNotAutoCommit() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "spring.datasource.hikari.auto-commit=false",
				"taskqueue.queues.manual.max-attempts=2")) {
			TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			UUID ok = transaction.execute((status) -> taskQueue.enqueue("manual", "ok"));
			UUID failing = transaction.execute((status) -> taskQueue.enqueue("manual", "fail"));
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			Await.until("both are settled", Duration.ofSeconds(20), () -> transaction
				.execute((status) -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)) == 0);
			assertThat(handled).containsExactly(ok);
			List<UUID> dead = transaction
				.execute((status) -> jdbc.queryForList("SELECT id FROM taskqueue_dead_task", UUID.class));
			assertThat(dead).containsExactly(failing);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		ManualHandler manualHandler() {
			return new ManualHandler();
		}

	}

	static class ManualHandler {

		@TaskHandler(queue = "manual")
		void handle(String payload, TaskContext context) {
			if (payload.equals("fail")) {
				throw new IllegalStateException("fails");
			}
			handled.add(context.id());
		}

	}

}
