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
			assertThat(history(url, "taskqueue_schema_history")).containsExactlyElementsOf(expectedHistory(true));
			assertThat(jdbc(url).queryForList("SELECT name FROM app_table", String.class)).containsExactly("kept");
			assertHandled(context);
		}
		try (ConfigurableApplicationContext restarted = TestApplications.start(url, List.of(Handlers.class))) {
			assertThat(history(url, "taskqueue_schema_history")).hasSize(shippedMigrations().size() + 1);
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
					"taskqueue_queue_minute", "taskqueue_waiting_task", "taskqueue_cancel_request",
					"taskqueue_progress", "taskqueue_result", "taskqueue_audit");
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
		for (String migration : shippedMigrations()) {
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
					"taskqueue_queue_minute", "taskqueue_waiting_task", "taskqueue_cancel_request",
					"taskqueue_progress", "taskqueue_result", "taskqueue_audit");
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
		assertThat(history(url, "taskqueue_schema_history")).hasSize(shippedMigrations().size());
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
				.containsExactlyElementsOf(expectedHistory(false));
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

	/**
	 * PostgreSQL's migrations as shipped (under {@code db/taskqueue}, some in folders shared with other databases),
	 * by version: a new migration is expected wherever the history is checked without being listed here.
	 */
	static List<String> shippedMigrations() {
		try {
			Resource[] scripts = new PathMatchingResourcePatternResolver()
				.getResources(TaskQueueSchemaMigrator.LOCATION + "/**/V*__*.sql");
			List<String> names = java.util.Arrays.stream(scripts).map(Resource::getFilename)
				.sorted(java.util.Comparator.comparingInt(SchemaMigrationIntegrationTests::version))
				.toList();
			assertThat(names).as("one script per version").doesNotHaveDuplicates()
				.extracting(SchemaMigrationIntegrationTests::version).doesNotHaveDuplicates();
			assertThat(names).startsWith("V1__create_taskqueue_tables.sql").hasSizeGreaterThanOrEqualTo(15);
			return names;
		}
		catch (IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	/** The rows of taskqueue_schema_history once every shipped migration ran, after Flyway's baseline if any. */
	static List<String> expectedHistory(boolean baseline) {
		java.util.ArrayList<String> rows = new java.util.ArrayList<>();
		if (baseline) {
			rows.add("0 << Flyway Baseline >> true");
		}
		for (String migration : shippedMigrations()) {
			rows.add(version(migration) + " " + migration + " true");
		}
		return rows;
	}

	private static int version(String migration) {
		return Integer.parseInt(migration.substring(1, migration.indexOf("__")));
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
