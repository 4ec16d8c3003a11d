package dev.taskqueue.autoconfigure;

import java.util.List;
import java.util.regex.Pattern;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * TaskQueue's startup failures come out as Spring Boot's {@code APPLICATION FAILED TO START} report, Description
 * and Action, instead of a stack trace with the reason buried in it. Each test starts a real application
 * ({@code SpringApplication}) with one mistake and reads what it printed.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportIntegrationTests {

	private static final String NL = System.lineSeparator();

	@Test
	void unknownPropertyInTheApplicationsConfiguration(CapturedOutput output) {
		String url = TestDatabase.createDatabase();
		assertFailsToStart(url, List.of(), "taskqueue.worker.concurency=2");
		assertReport(output,
				"taskqueue.worker.concurency (set in \"taskqueue.worker.concurency\" from property source "
						+ "\"defaultProperties\") is not a TaskQueue property; taskqueue.worker has completion-batch-size, ",
				"Correct the name of each property above, or remove it. TaskQueue's properties are listed in "
						+ "docs/configuration.md");
		assertThat(tables(url)).as("TaskQueue's tables").isZero();
	}

	@Test
	void aBuildPropertyInTheJvmsSystemPropertiesIsOnlyWarnedAbout(CapturedOutput output) {
		String url = TestDatabase.createDatabase();
		System.setProperty("taskqueue.version", "0.1.0");
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class))) {
			assertThat(context.isActive()).isTrue();
		}
		finally {
			System.clearProperty("taskqueue.version");
		}
		assertThat(output).doesNotContain("APPLICATION FAILED TO START")
			.contains("WARN")
			.contains("Ignoring JVM system properties that are not TaskQueue's: taskqueue.version")
			.contains(" is not a TaskQueue property; taskqueue has ")
			.contains("A build tool may pass its own to the JVM (Maven's -D does to tests)");
		assertThat(Pattern.compile("Ignoring JVM system properties").matcher(output.toString()).results().count())
			.isOne();
	}

	@Test
	void aMisspeltPropertyInTheConfigurationStopsStartupEvenWithABuildPropertyInTheSystemProperties(
			CapturedOutput output) {
		String url = TestDatabase.createDatabase();
		System.setProperty("taskqueue.version", "0.1.0");
		try {
			assertFailsToStart(url, List.of(Handlers.class), "taskqueue.worker.concurency=2");
		}
		finally {
			System.clearProperty("taskqueue.version");
		}
		assertReport(output, "taskqueue.worker.concurency (set in \"taskqueue.worker.concurency\" from property "
				+ "source \"defaultProperties\") is not a TaskQueue property",
				"Correct the name of each property above");
		assertThat(output).as("the fatal list names the misspelt property only")
			.doesNotContain("taskqueue.version (set in");
	}

	@Test
	void aMisspeltSettingOfATaskQueueGroupStopsStartupAlsoAsASystemProperty(CapturedOutput output) {
		String url = TestDatabase.createDatabase();
		System.setProperty("taskqueue.worker.concurency", "2");
		try {
			assertFailsToStart(url, List.of(Handlers.class));
		}
		finally {
			System.clearProperty("taskqueue.worker.concurency");
		}
		assertReport(output, "taskqueue.worker.concurency (set in \"taskqueue.worker.concurency\" from property "
				+ "source \"systemProperties\") is not a TaskQueue property",
				"Correct the name of each property above");
	}

	@Test
	void twoHandlersOfOneQueue(CapturedOutput output) {
		assertFailsToStart(TestDatabase.createDatabase(), List.of(Handlers.class, SecondEmailHandler.class));
		assertReport(output, "Queue 'emails' has two @TaskHandler methods: bean ",
				"Keep one @TaskHandler method per queue: remove one of the two, or give it a queue of its own.");
		assertThat(output).contains("method Handlers.email(String) and bean ")
			.contains("method SecondEmailHandler.deliver(String); a queue has exactly one handler");
	}

	@Test
	void aHandlerWithABadSignature(CapturedOutput output) {
		assertFailsToStart(TestDatabase.createDatabase(), List.of(NoPayloadHandler.class));
		assertReport(output, "@TaskHandler on bean ",
				"Change the @TaskHandler method as said above. A handler is a public or package-private instance "
						+ "method of a bean that takes (P payload) or (P payload, TaskContext context).");
		assertThat(output).contains("method NoPayloadHandler.handle() has a bad signature; a handler takes "
				+ "(P payload) or (P payload, TaskContext context)");
	}

	@Test
	void aRecurringTaskWithABadSchedule(CapturedOutput output) {
		assertFailsToStart(TestDatabase.createDatabase(), List.of(Handlers.class, BadCron.class));
		assertReport(output, "@RecurringTask on ",
				"Change the @RecurringTask method or its schedule as said above; docs/recurring-tasks.md");
		assertThat(output).contains("has an invalid cron expression 'every minute'");
	}

	@Test
	void aConfiguredScheduleWithoutQueue(CapturedOutput output) {
		assertFailsToStart(TestDatabase.createDatabase(), List.of(Handlers.class),
				"taskqueue.schedules.nightly.cron=0 0 3 * * *");
		assertReport(output, "taskqueue.schedules.nightly.queue must name the queue of a @TaskHandler but was not set",
				"Change taskqueue.schedules as said above");
	}

	@Test
	void aDatabaseThatIsDown(CapturedOutput output) {
		// Nothing listens on port 1; a short pool timeout keeps the test short.
		assertFailsToStart("jdbc:postgresql://127.0.0.1:1/none?user=postgres", List.of(Handlers.class),
				"spring.datasource.hikari.connection-timeout=500");
		assertReport(output, "TaskQueue could not connect to the database to migrate its tables: Could not take "
				+ "TaskQueue's migration lock: ",
				"Check that the database is running and reachable from this application, and spring.datasource.url, "
						+ "spring.datasource.username and spring.datasource.password.");
		assertThat(output).contains("Connection to 127.0.0.1:1 refused");
	}

	@Test
	void aDatabaseThatIsDownWithoutMigration(CapturedOutput output) {
		assertFailsToStart("jdbc:postgresql://127.0.0.1:1/none?user=postgres", List.of(Handlers.class),
				"spring.datasource.hikari.connection-timeout=500", "taskqueue.schema.migrate=false");
		// Without migration the topic subscriptions are stored first: the first statement of TaskQueue's.
		assertReport(output, "TaskQueue could not connect to the database to store its topic subscriptions: ",
				"Check that the database is running and reachable from this application, and spring.datasource.url, "
						+ "spring.datasource.username and spring.datasource.password.");
		assertThat(output).contains("Connection to 127.0.0.1:1 refused");
	}

	@Test
	void tablesThatWereNeverCreated(CapturedOutput output) {
		assertFailsToStart(TestDatabase.createDatabase(), List.of(Handlers.class), "taskqueue.schema.migrate=false");
		assertReport(output, "TaskQueue could not store its topic subscriptions: its tables are not there (ERROR: "
				+ "relation \"taskqueue_topic_subscription\" does not exist",
				"Apply TaskQueue's migrations (classpath:db/taskqueue) to this database and schema, or remove "
						+ "taskqueue.schema.migrate=false to have TaskQueue apply them at startup.");
	}

	@Test
	void aMigrationThatFails(CapturedOutput output) {
		String url = TestDatabase.createDatabase();
		// A table of the application's in the way of TaskQueue's first migration.
		TestDatabase.execute(url, "CREATE TABLE taskqueue_session (id int)");
		assertFailsToStart(url, List.of(Handlers.class));
		assertReport(output, "TaskQueue's schema migration failed: ",
				"Fix the cause above and start again: on PostgreSQL a failed migration is rolled back, so the next "
						+ "start runs it again. TaskQueue's migrations are in classpath:db/taskqueue, their history "
						+ "in the table taskqueue_schema_history, apart from the application's own.");
		assertThat(output).contains("relation \"taskqueue_session\" already exists");
	}

	private static void assertFailsToStart(String url, List<Class<?>> sources, String... properties) {
		assertThatRuntimeException().isThrownBy(() -> TestApplications.start(url, sources, properties).close());
	}

	/** The report is Boot's analysis, with TaskQueue's description and action, and Boot logged no stack trace. */
	private static void assertReport(CapturedOutput output, String description, String action) {
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Description:" + NL + NL + description)
			.contains("Action:" + NL + NL + action)
			.doesNotContain("Application run failed");
		String report = output.toString().substring(output.toString().indexOf("APPLICATION FAILED TO START"));
		assertThat(report).as("the report").doesNotContain("\tat ");
	}

	private static int tables(String url) {
		Integer count = new JdbcTemplate(new DriverManagerDataSource(url)).queryForObject(
				"SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'taskqueue%'", Integer.class);
		return (count != null) ? count : -1;
	}

	static class Handlers {

		@TaskHandler(queue = "emails")
		void email(String payload) {
		}

	}

	static class SecondEmailHandler {

		@TaskHandler(queue = "emails")
		void deliver(String payload) {
		}

	}

	static class NoPayloadHandler {

		@TaskHandler(queue = "reports")
		void handle() {
		}

	}

	static class BadCron {

		@RecurringTask(cron = "every minute")
		void tick() {
		}

	}

}
