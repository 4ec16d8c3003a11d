package dev.taskqueue.internal.schedule;

import java.util.List;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.internal.support.StartupFailure;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Schedules are checked at startup, as docs/checks.md says: a bad one stops the application before TaskQueue
 * creates its tables, and a configured payload that its handler cannot read stops it instead of failing every tick.
 */
class ScheduleStartupChecksIntegrationTests {

	@Test
	void aBadRecurringTaskStopsStartupBeforeAnyTableIsCreated() {
		String url = TestDatabase.createDatabase();
		Throwable failure = catchThrowable(() -> TestApplications.start(url, List.of(BadCron.class)).close());
		assertThat(startupFailure(failure)).hasMessageContaining("has an invalid cron expression '0 0 25 * * *'");
		assertThat(taskQueueTables(url)).isEmpty();
	}

	@Test
	void aBadConfiguredScheduleStopsStartupBeforeAnyTableIsCreated() {
		String url = TestDatabase.createDatabase();
		Throwable failure = catchThrowable(() -> TestApplications.start(url, List.of(Reports.class),
				"taskqueue.schedules.nightly.cron=0 0 25 * * *", "taskqueue.schedules.nightly.queue=reports").close());
		assertThat(startupFailure(failure)).hasMessageContaining("taskqueue.schedules.nightly")
			.hasMessageContaining("0 0 25 * * *");
		assertThat(taskQueueTables(url)).isEmpty();
	}

	@Test
	void aConfiguredPayloadItsHandlerCannotReadStopsStartup() {
		String url = TestDatabase.createDatabase();
		Throwable failure = catchThrowable(() -> TestApplications.start(url, List.of(Reports.class),
				"taskqueue.schedules.nightly.fixed-rate=1h", "taskqueue.schedules.nightly.queue=reports",
				"taskqueue.schedules.nightly.payload={\"day\": \"monday\"}").close());
		assertThat(startupFailure(failure)).hasMessageContaining("taskqueue.schedules.nightly.payload")
			.hasMessageContaining(Report.class.getTypeName())
			.hasMessageContaining("schedule 'nightly'");
	}

	@Test
	void aConfiguredPayloadItsHandlerReadsStarts() {
		String url = TestDatabase.createDatabase();
		TestApplications.start(url, List.of(Reports.class), "taskqueue.schedules.nightly.fixed-rate=1h",
				"taskqueue.schedules.nightly.queue=reports", "taskqueue.schedules.nightly.payload={\"day\": 3}")
			.close();
	}

	/** SpEL needs beans to evaluate: the early check leaves such a schedule to the bean post-processor. */
	@Test
	void aRecurringTaskWithAnExpressionStarts() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(ExpressionCron.class))) {
			assertThat(new JdbcTemplate(new DriverManagerDataSource(url)).queryForList(
					"SELECT name FROM taskqueue_schedule", String.class)).contains("expression-cron");
		}
	}

	private static Throwable startupFailure(Throwable failure) {
		assertThat(failure).as("startup failed").isNotNull();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof StartupFailure) {
				return cause;
			}
		}
		throw new AssertionError("No StartupFailure in " + NestedExceptionUtils.getMostSpecificCause(failure),
				failure);
	}

	private static List<String> taskQueueTables(String url) {
		return new JdbcTemplate(new DriverManagerDataSource(url)).queryForList(
				"SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'taskqueue%'", String.class);
	}

	record Report(int day) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Reports {

		@Bean
		ReportHandler reportHandler() {
			return new ReportHandler();
		}

	}

	static class ReportHandler {

		@TaskHandler(queue = "reports")
		void handle(Report report) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadCron {

		// Needs TaskQueue, as a recurring task that enqueues does: created after TaskQueue's migration.
		@Bean
		Nightly nightly(TaskQueue taskQueue) {
			return new Nightly();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ExpressionCron {

		@Bean
		ExpressionTick expressionTick() {
			return new ExpressionTick();
		}

	}

	static class ExpressionTick {

		@RecurringTask(name = "expression-cron", cron = "#{'0 0 1 * * *'}")
		void tick() {
		}

	}

	static class Nightly {

		@RecurringTask(cron = "0 0 25 * * *")
		void tick() {
		}

	}

}
