package dev.taskqueue.internal.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class EnqueueRepositoryTests {

	private static EnqueueRepository tasks;

	private static JdbcTemplate jdbc;

	private static TransactionTemplate transaction;

	@BeforeAll
	static void migrate() {
		DataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		tasks = new EnqueueRepository(dataSource, tables);
		jdbc = new JdbcTemplate(dataSource);
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	@BeforeEach
	void emptyTable() {
		jdbc.execute("TRUNCATE taskqueue_task");
	}

	@Test
	void insertAllPutsRunAtAtNowAfterTheDelayOrAtTheGivenTime() {
		Instant at = Instant.parse("2030-01-02T03:04:05.123456789Z");
		List<NewTask> batch = List.of(new NewTask(UUID.randomUUID(), "a", "1", 0, null, null),
				new NewTask(UUID.randomUUID(), "b", "\"two\"", 7, Duration.ofSeconds(90), null),
				new NewTask(UUID.randomUUID(), "c", "[3]", -2, null, at),
				new NewTask(UUID.randomUUID(), "d", "{}", 0, Duration.ofNanos(1_500_999), null));
		List<Map<String, Object>> rows = transaction.execute((status) -> {
			tasks.insertAll(batch);
			return jdbc.queryForList("SELECT queue, priority, payload::text AS payload, "
					+ "enqueued_at = now() AS enqueued_now, "
					+ "(extract(epoch FROM run_at - now()) * 1000000)::bigint AS after_now, "
					+ "(extract(epoch FROM run_at) * 1000000)::bigint AS epoch_micros "
					+ "FROM taskqueue_task ORDER BY queue");
		});
		assertThat(rows).extracting((row) -> row.get("queue")).containsExactly("a", "b", "c", "d");
		assertThat(rows).extracting((row) -> row.get("payload")).containsExactly("1", "\"two\"", "[3]", "{}");
		assertThat(rows).extracting((row) -> row.get("priority")).containsExactly(0, 7, -2, 0);
		assertThat(rows).allSatisfy((row) -> assertThat(row.get("enqueued_now")).isEqualTo(true));
		assertThat(rows.get(0).get("after_now")).isEqualTo(0L);
		assertThat(rows.get(1).get("after_now")).isEqualTo(90_000_000L);
		assertThat(rows.get(2).get("epoch_micros")).isEqualTo(1_893_553_445_123_456L);
		assertThat(rows.get(3).get("after_now")).isEqualTo(1_500L);
	}

	@Test
	void insertAllKeepsEachTasksHeadersAndPutsTasksWithoutATimeAtNow() {
		List<NewTask> batch = List.of(new NewTask(UUID.randomUUID(), "a", "1", 0, null, null, "{\"k\": \"1\"}"),
				new NewTask(UUID.randomUUID(), "b", "2", 0, null, null, "{}"));
		List<Map<String, Object>> rows = transaction.execute((status) -> {
			tasks.insertAll(batch);
			tasks.insertAll(List.of());
			return jdbc.queryForList("SELECT headers::text AS headers, run_at = now() AS due_now "
					+ "FROM taskqueue_task ORDER BY queue");
		});
		assertThat(rows).extracting((row) -> row.get("headers")).containsExactly("{\"k\": \"1\"}", "{}");
		assertThat(rows).allSatisfy((row) -> assertThat(row.get("due_now")).isEqualTo(true));
	}

	@Test
	void insertPutsRunAtAfterTheDelay() {
		UUID id = UUID.randomUUID();
		Long afterNow = transaction.execute((status) -> {
			tasks.insert(new NewTask(id, "q", "\"x\"", 0, Duration.ofMillis(1500), null));
			return jdbc.queryForObject("SELECT (extract(epoch FROM run_at - now()) * 1000000)::bigint "
					+ "FROM taskqueue_task WHERE id = ?", Long.class, id);
		});
		assertThat(afterNow).isEqualTo(1_500_000L);
	}

}
