package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

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
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task of a handler transaction is completed by the statement that commits that transaction (one round trip for
 * both), after the handler's own before-commit callbacks: their work commits with the task, and when one of them
 * fails, nothing commits and the attempt counts as failed.
 */
class CompletionAtCommitIntegrationTests {

	@Test
	void beforeCommitWorkOfTheHandlerCommitsWithTheCompletionAndKeepsHistory() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.history.enabled=true")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			UUID id = context.getBean(TaskQueue.class).enqueue("at-commit", "ok");
			Await.until("the task is done", Duration.ofSeconds(10),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForList("SELECT step FROM at_commit_work WHERE task_id = ? ORDER BY step",
					String.class, id)).containsExactly("before-commit", "handler");
			assertThat(jdbc.queryForObject("SELECT attempts FROM taskqueue_history WHERE id = ?", Integer.class, id))
				.isEqualTo(1);
		}
	}

	@Test
	void aFailingBeforeCommitCallbackRollsBackTheHandlerAndTheCompletion() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.queues.at-commit.max-attempts=1")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			UUID id = context.getBean(TaskQueue.class).enqueue("at-commit", "fail-before-commit");
			Await.until("the task is dead", Duration.ofSeconds(10), () -> jdbc
				.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class, id) == 1);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM at_commit_work", Integer.class)).isZero();
			assertThat(jdbc.queryForObject("SELECT error FROM taskqueue_dead_task WHERE id = ?", String.class, id))
				.startsWith("java.lang.IllegalStateException: before-commit refused");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		AtCommitHandler atCommitHandler(JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE at_commit_work (task_id uuid NOT NULL, step text NOT NULL)");
			return new AtCommitHandler(jdbc);
		}

	}

	static class AtCommitHandler {

		private final JdbcTemplate jdbc;

		AtCommitHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "at-commit")
		void handle(String payload, TaskContext context) {
			this.jdbc.update("INSERT INTO at_commit_work VALUES (?, 'handler')", context.id());
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void beforeCommit(boolean readOnly) {
					AtCommitHandler.this.jdbc.update("INSERT INTO at_commit_work VALUES (?, 'before-commit')",
							context.id());
					if (payload.equals("fail-before-commit")) {
						throw new IllegalStateException("before-commit refused");
					}
				}

			});
		}

	}

}
