package dev.taskqueue.autoconfigure;

import java.util.List;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.actuate.TaskQueueDescriptors.DatabaseInfo;
import dev.taskqueue.actuate.TaskQueueEndpoint;
import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.TaskNotifications;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * {@code taskqueue.database} on a real PostgreSQL: auto detects it, logs it once and shows it in the endpoint's
 * descriptor; a setting that names another database stops the application with a message that says which.
 */
@ExtendWith(OutputCaptureExtension.class)
class DatabaseDetectionIntegrationTests {

	private final String url = TestDatabase.createDatabase();

	@Test
	void autoDetectsPostgresqlLogsItOnceAndShowsItInTheEndpoint(CapturedOutput output) {
		try (ConfigurableApplicationContext context = TestApplications.start(this.url, List.of(),
				"taskqueue.worker.enabled=false")) {
			DatabaseDialect dialect = context.getBean(DatabaseDialect.class);
			assertThat(dialect.database()).isEqualTo(Database.POSTGRESQL);
			assertThat(dialect.listenNotify()).isTrue();
			assertThat(dialect.advisoryLocks()).isTrue();
			assertThat(context.getBeanProvider(TaskNotifications.class).getIfAvailable()).isNotNull();
			assertThat(new TaskQueueEndpoint(context.getBean(TaskQueueOperations.class), dialect).taskQueue()
				.database()).isEqualTo(new DatabaseInfo("postgresql", true, true));
		}
		assertThat(output.getOut().split("TaskQueue runs on PostgreSQL \\(detected, PostgreSQL ", -1)).hasSize(2);
	}

	@Test
	void anExplicitSettingThatMatchesStarts() {
		try (ConfigurableApplicationContext context = TestApplications.start(this.url, List.of(),
				"taskqueue.worker.enabled=false", "taskqueue.database=postgresql")) {
			assertThat(context.getBean(DatabaseDialect.class).database()).isEqualTo(Database.POSTGRESQL);
		}
	}

	@Test
	void aSettingThatContradictsTheDetectedDatabaseStopsTheApplication() {
		for (String database : List.of("cockroachdb", "yugabytedb")) {
			assertThatException()
				.isThrownBy(() -> TestApplications.start(this.url, List.of(), "taskqueue.database=" + database))
				.havingRootCause()
				.withMessageStartingWith("taskqueue.database is " + database + " but the database is PostgreSQL "
						+ "(SELECT version() says 'PostgreSQL ")
				.withMessageEndingWith("'): set taskqueue.database=postgresql or auto");
		}
	}

}
