package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database on schema version 1, with tasks and dead letters in it, moves to version 2 on the next start and
 * loses nothing: old tasks run with empty headers, old dead letters can be retried.
 */
class SchemaUpgradeIntegrationTests {

	@Test
	void tasksWrittenBeforeVersion2RunAndTheirDeadLettersCanBeRetried() {
		String url = TestDatabase.createDatabase();
		DriverManagerDataSource dataSource = new DriverManagerDataSource(url);
		Flyway.configure()
			.dataSource(dataSource)
			.locations(TaskQueueSchemaMigrator.LOCATION)
			.table(TaskQueueSchemaMigrator.HISTORY_TABLE)
			.target("1")
			.load()
			.migrate();
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		UUID waiting = UUID.randomUUID();
		UUID dead = UUID.randomUUID();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) VALUES (?, 'upgrade', '\"old task\"')", waiting);
		jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, error) "
				+ "VALUES (?, 'upgrade', '\"old dead task\"', 0, 5, now(), 'failed in version 1')", dead);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class))) {
			Handlers handlers = context.getBean(Handlers.class);
			Await.until("the old task runs", Duration.ofSeconds(20), () -> handlers.handled.containsKey(waiting));
			assertThat(jdbc.queryForObject("SELECT headers::text FROM taskqueue_dead_task WHERE id = ?", String.class,
					dead)).isEqualTo("{}");
			assertThat(context.getBean(TaskQueueOperations.class).retryDead(dead)).isTrue();
			Await.until("the old dead task runs", Duration.ofSeconds(20), () -> handlers.handled.containsKey(dead));
			assertThat(handlers.handled).containsEntry(waiting, "old task").containsEntry(dead, "old dead task");
		}
	}

	static class Handlers {

		final Map<UUID, String> handled = new ConcurrentHashMap<>();

		@TaskHandler(queue = "upgrade")
		void handle(String payload, TaskContext context) {
			this.handled.put(context.id(), payload);
		}

	}

}
