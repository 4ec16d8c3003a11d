package dev.taskqueue.autoconfigure;

import java.util.List;

import dev.taskqueue.autoconfigure.SchemaMigrationIntegrationTests.Handlers;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.flywaydb.core.api.FlywayException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static dev.taskqueue.autoconfigure.SchemaMigrationIntegrationTests.assertHandled;
import static dev.taskqueue.autoconfigure.SchemaMigrationIntegrationTests.history;
import static dev.taskqueue.autoconfigure.SchemaMigrationIntegrationTests.jdbc;
import static dev.taskqueue.autoconfigure.SchemaMigrationIntegrationTests.tables;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * TaskQueue's migrations next to the application's own, run by Spring Boot's Flyway: on a new database, and on one
 * where TaskQueue's tables came first.
 */
class ApplicationFlywayIntegrationTests {

	private static final String APP_MIGRATIONS = "spring.flyway.locations=classpath:db/app-migration";

	private static final List<String> APP_HISTORY_FROM_BASELINE = List.of("0 << Flyway Baseline >> true",
			"1 V1__app.sql true");

	@Test
	void onANewDatabaseBothAreAppliedTheApplicationsFirst() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url,
				List.of(AppFlyway.class, Handlers.class), APP_MIGRATIONS)) {
			assertThat(tables(url, "public")).contains("flyway_schema_history", "taskqueue_schema_history", "app_table",
					"taskqueue_task", "taskqueue_session", "taskqueue_dead_task");
			// No baseline: Flyway found the schema empty, so it ran before TaskQueue created its tables.
			assertThat(history(url, "flyway_schema_history")).containsExactly("1 V1__app.sql true");
			assertThat(history(url, "taskqueue_schema_history")).containsExactlyElementsOf(SchemaMigrationIntegrationTests.expectedHistory(true));
			assertHandled(context);
		}
	}

	@Test
	void addedOnceTaskQueuesTablesExistItRunsAllTheApplicationsMigrations() {
		String url = TestDatabase.createDatabase();
		TestApplications.start(url, List.of()).close();
		try (ConfigurableApplicationContext context = TestApplications.start(url,
				List.of(AppFlyway.class, Handlers.class), APP_MIGRATIONS)) {
			assertThat(history(url, "flyway_schema_history")).containsExactlyElementsOf(APP_HISTORY_FROM_BASELINE);
			assertThat(tables(url, "public")).contains("app_table", "taskqueue_task");
			assertHandled(context);
		}
		TestApplications.start(url, List.of(AppFlyway.class), APP_MIGRATIONS).close();
		assertThat(history(url, "flyway_schema_history")).containsExactlyElementsOf(APP_HISTORY_FROM_BASELINE);
	}

	@Test
	void addedToASchemaWithTaskQueueInAnotherSchemaNeedsNoBaseline() {
		String url = TestDatabase.createDatabase();
		TestApplications.start(url, List.of(), "taskqueue.schema.name=jobs").close();
		TestApplications.start(url, List.of(AppFlyway.class), APP_MIGRATIONS, "taskqueue.schema.name=jobs").close();
		assertThat(history(url, "flyway_schema_history")).containsExactly("1 V1__app.sql true");
	}

	@Test
	void aSchemaWithTablesOfTheApplicationsOwnIsLeftToFlywaysMessage() {
		String url = TestDatabase.createDatabase();
		TestDatabase.execute(url, "CREATE TABLE orders (id bigint PRIMARY KEY)");
		TestApplications.start(url, List.of()).close();
		assertThatException().isThrownBy(() -> TestApplications.start(url, List.of(AppFlyway.class), APP_MIGRATIONS))
			.havingRootCause()
			.isExactlyInstanceOf(FlywayException.class)
			.withMessageStartingWith("Found non-empty schema(s) \"public\" but no schema history table");
		assertThat(tables(url, "public")).doesNotContain("flyway_schema_history", "app_table");
	}

	@Test
	void aBaselineTheApplicationConfiguredIsKept() {
		String url = TestDatabase.createDatabase();
		TestApplications.start(url, List.of()).close();
		TestApplications.start(url, List.of(AppFlyway.class), APP_MIGRATIONS, "spring.flyway.baseline-on-migrate=true")
			.close();
		assertThat(history(url, "flyway_schema_history")).containsExactly("1 << Flyway Baseline >> true");
		assertThat(jdbc(url).queryForList("SELECT to_regclass('app_table')::text", String.class)).containsOnlyNulls();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(FlywayAutoConfiguration.class)
	static class AppFlyway {

	}

}
