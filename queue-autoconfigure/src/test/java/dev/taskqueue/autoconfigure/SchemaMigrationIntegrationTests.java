package dev.taskqueue.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TaskQueue's own Flyway: on a schema with the application's tables, in another schema, switched off, and
 * run by instances starting together. Next to the application's Flyway: {@link ApplicationFlywayIntegrationTests}.
 */
class SchemaMigrationIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void taskQueueMigratesASchemaThatAlreadyHoldsTheApplicationsTables() {
		String url = TestDatabase.createDatabase();
		TestDatabase.execute(url, "CREATE TABLE app_table (id bigint PRIMARY KEY, name text NOT NULL)");
		TestDatabase.execute(url, "INSERT INTO app_table VALUES (1, 'kept')");
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class))) {
			assertThat(history(url, "taskqueue_schema_history")).containsExactly("0 << Flyway Baseline >> true",
					"1 V1__create_taskqueue_tables.sql true", "2 V2__operations_and_observability.sql true",
					"3 V3__unique_tasks.sql true", "4 V4__ordered_keys.sql true", "5 V5__queue_limits.sql true", "6 V6__recurring_schedules.sql true",
					"7 V7__topics_and_batches.sql true", "8 V8__dashboard_stats.sql true", "9 V9__hash_sharded_claims.sql true",
					"10 V10__shutdown_give_backs.sql true", "11 V11__session_queues.sql true",
					"12 V12__queue_autovacuum.sql true", "13 V13__sliding_rate_limits.sql true",
					"14 V14__task_dependencies.sql true", "16 V16__progress_and_results.sql true");
			assertThat(jdbc(url).queryForList("SELECT name FROM app_table", String.class)).containsExactly("kept");
			assertHandled(context);
		}
		try (ConfigurableApplicationContext restarted = TestApplications.start(url, List.of(Handlers.class))) {
			assertThat(history(url, "taskqueue_schema_history")).hasSize(16);
		}
	}

	@Test
	void schemaNamePutsEverythingInThatSchema() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class),
				"taskqueue.schema.name=jobs")) {
			assertThat(tables(url, "jobs")).containsExactlyInAnyOrder("taskqueue_schema_history", "taskqueue_task",
					"taskqueue_session", "taskqueue_dead_task", "taskqueue_queue", "taskqueue_history",
					"taskqueue_schedule", "taskqueue_batch", "taskqueue_topic_subscription",
					"taskqueue_queue_minute", "taskqueue_waiting_task", "taskqueue_progress", "taskqueue_result");
			assertThat(tables(url, "public")).isEmpty();
			assertThat(jdbc(url).queryForObject("SELECT count(*) FROM jobs.taskqueue_session", Integer.class))
				.isEqualTo(1);
			assertHandled(context);
			assertThat(jdbc(url).queryForObject("SELECT count(*) FROM jobs.taskqueue_task", Integer.class)).isZero();
		}
	}

	@Test
	void shippedSqlAppliedByHandWorksWithoutMigration() throws IOException {
		String url = TestDatabase.createDatabase();
		for (String migration : List.of("V1__create_taskqueue_tables.sql", "V2__operations_and_observability.sql",
				"V3__unique_tasks.sql", "V4__ordered_keys.sql", "V5__queue_limits.sql", "V6__recurring_schedules.sql",
				"V7__topics_and_batches.sql", "V8__dashboard_stats.sql", "V9__hash_sharded_claims.sql",
				"V10__shutdown_give_backs.sql", "V11__session_queues.sql", "V12__queue_autovacuum.sql",
				"V13__sliding_rate_limits.sql", "V14__task_dependencies.sql",
				"V16__progress_and_results.sql")) {
			// PostgreSQL's migrations are all under db/taskqueue, some in the subfolders they share with other databases
			Resource[] script = new PathMatchingResourcePatternResolver()
				.getResources(TaskQueueSchemaMigrator.LOCATION + "/**/" + migration);
			assertThat(script).as(migration).hasSize(1);
			TestDatabase.execute(url, script[0].getContentAsString(StandardCharsets.UTF_8));
		}
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class),
				"taskqueue.schema.migrate=false")) {
			assertThat(context.getBeansOfType(TaskQueueSchemaMigrator.class)).isEmpty();
			assertThat(tables(url, "public")).containsExactlyInAnyOrder("taskqueue_task", "taskqueue_session",
					"taskqueue_dead_task", "taskqueue_queue", "taskqueue_history", "taskqueue_schedule", "taskqueue_batch", "taskqueue_topic_subscription",
					"taskqueue_queue_minute", "taskqueue_waiting_task", "taskqueue_progress", "taskqueue_result");
			assertHandled(context);
		}
	}

	@Test
	void migratesThroughAPoolOfOneConnection() {
		String url = TestDatabase.createDatabase();
		com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(1);
		config.setConnectionTimeout(2_000);
		try (com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(config)) {
			new TaskQueueSchemaMigrator(pool, TaskTables.inSchema(null)).afterPropertiesSet();
		}
		assertThat(history(url, "taskqueue_schema_history")).hasSize(15);
	}

	@Test
	void twoInstancesMigratingTogetherOnAnEmptyDatabaseBothSucceed() throws Exception {
		// Two migrators, as two instances starting at once would run them (whole contexts cannot start in
		// parallel in one JVM: Spring Boot's logging initialisation is not made for it).
		String url = TestDatabase.createDatabase();
		ExecutorService starters = Executors.newFixedThreadPool(2);
		try {
			List<Future<?>> migrations = List.of(
					starters.submit(() -> new TaskQueueSchemaMigrator(new DriverManagerDataSource(url),
							TaskTables.inSchema(null)).afterPropertiesSet()),
					starters.submit(() -> new TaskQueueSchemaMigrator(new DriverManagerDataSource(url),
							TaskTables.inSchema(null)).afterPropertiesSet()));
			for (Future<?> migration : migrations) {
				migration.get(60, TimeUnit.SECONDS);
			}
			assertThat(history(url, "taskqueue_schema_history"))
				.containsExactly("1 V1__create_taskqueue_tables.sql true",
						"2 V2__operations_and_observability.sql true", "3 V3__unique_tasks.sql true",
						"4 V4__ordered_keys.sql true", "5 V5__queue_limits.sql true", "6 V6__recurring_schedules.sql true",
					"7 V7__topics_and_batches.sql true", "8 V8__dashboard_stats.sql true", "9 V9__hash_sharded_claims.sql true",
					"10 V10__shutdown_give_backs.sql true", "11 V11__session_queues.sql true",
					"12 V12__queue_autovacuum.sql true", "13 V13__sliding_rate_limits.sql true",
					"14 V14__task_dependencies.sql true", "16 V16__progress_and_results.sql true");
			try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class))) {
				UUID id = context.getBean(TaskQueue.class).enqueue("schema-check", "after");
				Await.until("the task is handled", WAIT,
						() -> context.getBean(Handlers.class).handled.containsKey(id));
			}
		}
		finally {
			starters.shutdownNow();
		}
	}

	@Test
	void aBeanThatEnqueuesWhileTheApplicationStartsFindsTheTables() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url,
				List.of(EnqueuesOnStartup.class, Handlers.class))) {
			UUID id = context.getBean(EnqueuesOnStartup.class).id;
			Handlers handlers = context.getBean(Handlers.class);
			Await.until("the task enqueued on startup is handled", WAIT, () -> handlers.handled.containsKey(id));
			assertThat(handlers.handled.get(id)).isEqualTo("on startup");
		}
	}

	static void assertHandled(ConfigurableApplicationContext context) {
		UUID id = context.getBean(TaskQueue.class).enqueue("schema-check", "ping");
		Handlers handlers = context.getBean(Handlers.class);
		Await.until("the task is handled", WAIT, () -> handlers.handled.containsKey(id));
		assertThat(handlers.handled.get(id)).isEqualTo("ping");
	}

	static List<String> tables(String url, String schema) {
		return jdbc(url).queryForList("SELECT table_name FROM information_schema.tables WHERE table_schema = ? "
				+ "ORDER BY table_name", String.class, schema);
	}

	static List<String> history(String url, String table) {
		return jdbc(url).queryForList("SELECT concat_ws(' ', version, script, success::text) FROM " + table
				+ " ORDER BY installed_rank", String.class);
	}

	static JdbcTemplate jdbc(String url) {
		return new JdbcTemplate(new DriverManagerDataSource(url));
	}

	static class EnqueuesOnStartup {

		final UUID id;

		EnqueuesOnStartup(TaskQueue taskQueue) {
			this.id = taskQueue.enqueue("schema-check", "on startup");
		}

	}

	static class Handlers {

		final Map<UUID, String> handled = new ConcurrentHashMap<>();

		@TaskHandler(queue = "schema-check")
		void handle(String payload, TaskContext context) {
			this.handled.put(context.id(), payload);
		}

	}

}
