package dev.taskqueue.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.internal.support.StartupFailure;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Configuration mistakes a new user makes in the first hour are said at startup: a misspelt property stops the
 * application naming it and the valid ones (relaxed spellings still bind), settings for a queue without a handler
 * give one line, and the defaults do not warn about the connection pool.
 */
@ExtendWith(OutputCaptureExtension.class)
class StrictConfigurationIntegrationTests {

	private static final String QUEUE_SETTINGS = "buckets, concurrency, global-concurrency, group-commit-size, "
			+ "max-attempts, rate-limit, timeout";

	private static final String UNHANDLED_WARNING = "taskqueue.queues has settings for queue(s) ";

	private final String url = TestDatabase.createDatabase();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				TransactionAutoConfiguration.class, JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + this.url);

	@Test
	void misspeltQueueSettingStopsTheApplicationNamingItAndTheValidOnes() {
		assertStartupFails("taskqueue.queues.emails.concurency=1", "taskqueue.queues.emails.concurency (set in ",
				" is not a TaskQueue property; taskqueue.queues.<name> has " + QUEUE_SETTINGS);
		assertStartupFails("taskqueue.queues[billing.v2].maxAttempt=1", "taskqueue.queues[billing.v2].maxattempt",
				"taskqueue.queues.<name> has " + QUEUE_SETTINGS);
		assertStartupFails("taskqueue.queues.emails.rate-limit.limt=5", "taskqueue.queues.emails.rate-limit.limt",
				"taskqueue.queues.<name>.rate-limit has limit, period");
	}

	@ParameterizedTest
	@ValueSource(strings = { "taskqueue.worker.concurency=1", "taskqueue.retry.backoff.multiplyer=3",
			"taskqueue.enable=false", "taskqueue.queue.emails.concurrency=1" })
	void misspeltPropertyElsewhereStopsTheApplicationNamingItsGroup(String property) {
		String name = property.substring(0, property.indexOf('='));
		String group = name.substring(0, name.lastIndexOf('.'));
		String groupWithSettings = name.startsWith("taskqueue.queue.") ? "taskqueue" : group;
		assertStartupFails(property, name + " (set in ", " is not a TaskQueue property; " + groupWithSettings
				+ " has ");
	}

	@Test
	void misspeltScheduleSettingStopsTheApplicationNamingItAndTheValidOnes() {
		assertStartupFails("taskqueue.schedules.nightly.payloadd={}", "taskqueue.schedules.nightly.payloadd (set in ",
				" is not a TaskQueue property; taskqueue.schedules.<name> has cron, fixed-delay, fixed-rate, missed, "
						+ "overlap, payload, queue, zone");
	}

	@Test
	void everyMistakeIsNamedInOneMessage() {
		this.runner.withPropertyValues("taskqueue.queues.emails.concurency=1", "taskqueue.worker.polInterval=1s")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(StartupFailure.class)
				.hasCauseInstanceOf(IllegalArgumentException.class)
				.message()
				.contains("taskqueue.queues.emails.concurency (set in ")
				.contains("; taskqueue.worker.polinterval (set in ")
				.contains("taskqueue.worker has completion-batch-size, completion-flush-interval, concurrency, "
						+ "enabled, group-commit-max-delay, group-commit-size, heartbeat-interval, max-prefetch, "
						+ "poll-interval, session-timeout, shutdown-timeout, timeout"));
	}

	@Test
	void relaxedSpellingsStillBind() {
		this.runner.withBean(Handlers.class)
			.withPropertyValues("taskqueue.queues.emails.max-attempts=2", "taskqueue.queues.reports.maxAttempts=3",
					"taskqueue.queues.audit.MAX_ATTEMPTS=4", "taskqueue.Worker.Poll-Interval=1s")
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new SystemEnvironmentPropertySource("test-systemEnvironment",
						Map.of("TASKQUEUE_QUEUES_EMAILS_CONCURRENCY", "3", "TASKQUEUE_WORKER_SERVICE_HOST", "10.0.0.1",
								"TASKQUEUE_PORT", "tcp://10.0.0.1:80"))))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				TaskQueueProperties properties = context.getBean(TaskQueueProperties.class);
				assertThat(properties.getQueues().get("emails").getMaxAttempts()).isEqualTo(2);
				assertThat(properties.getQueues().get("emails").getConcurrency()).isEqualTo(3);
				assertThat(properties.getQueues().get("reports").getMaxAttempts()).isEqualTo(3);
				assertThat(properties.getQueues().get("audit").getMaxAttempts()).isEqualTo(4);
				assertThat(properties.getWorker().getPollInterval()).hasSeconds(1);
			});
	}

	@Test
	void settingsForQueuesWithoutAHandlerGiveOneWarning(CapturedOutput output) {
		this.runner.withBean(Handlers.class)
			.withPropertyValues("taskqueue.queues.emails.concurrency=2", "taskqueue.queues.email.concurrency=2",
					"taskqueue.queues.reprots.max-attempts=2")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(lines(output, UNHANDLED_WARNING)).isOne();
		assertThat(output).contains("WARN")
			.contains(UNHANDLED_WARNING + "[email, reprots] but no @TaskHandler in this application handles them "
					+ "(it handles [emails, reports]); their settings apply only where those queues have handlers "
					+ "(but for buckets, which also place the tasks enqueued here). A misspelt queue name?");
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void settingsForQueuesInAnApplicationThatRunsNoHandlersAreOnlyMentioned(boolean handlersButNoWorker,
			CapturedOutput output) {
		ApplicationContextRunner producer = handlersButNoWorker
				? this.runner.withBean(Handlers.class).withPropertyValues("taskqueue.worker.enabled=false")
				: this.runner;
		producer.withPropertyValues("taskqueue.queues.invoices.concurrency=2")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(lines(output, UNHANDLED_WARNING)).isOne();
		assertThat(warnings(output)).isEmpty();
		assertThat(output).contains("INFO")
			.contains(UNHANDLED_WARNING + "[invoices]; this application runs no handlers, so they apply only to the "
					+ "applications that handle those queues");
	}

	@Test
	void twoHandlersAtDefaultSettingsFitTheDefaultPool(CapturedOutput output) {
		this.runner.withBean(Handlers.class).run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("at most 8 handlers at once (connection pool)")
			.doesNotContain("The queues' concurrency adds up to");
		assertThat(warnings(output)).isEmpty();
	}

	@Test
	void threeHandlersAtDefaultSettingsAreCappedAndSaySo(CapturedOutput output) {
		this.runner.withBean(Handlers.class)
			.withBean(MoreHandlers.class)
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("The queues' concurrency adds up to 12 but the connection pool leaves room for "
				+ "8 handlers (the worker keeps one connection for its bookkeeping and one for LISTEN)")
			.contains("Size the pool at least the sum of the queues' concurrency + 2");
	}

	@Test
	void connectionBudget() {
		assertThat(ConnectionBudget.hasRoomForListen(10)).isTrue();
		assertThat(ConnectionBudget.maxHandlers(10, true)).isEqualTo(8);
		assertThat(ConnectionBudget.hasRoomForListen(3)).isFalse();
		assertThat(ConnectionBudget.maxHandlers(3, false)).isEqualTo(2);
		assertThat(ConnectionBudget.maxHandlers(1, false)).isOne();
	}

	private void assertStartupFails(String property, String messageStart, String messagePart) {
		this.runner.withPropertyValues(property)
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(StartupFailure.class)
				.hasCauseInstanceOf(IllegalArgumentException.class)
				.message()
				.startsWith(messageStart)
				.contains(messagePart));
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM information_schema.tables "
				+ "WHERE table_name LIKE 'taskqueue%'", Integer.class)).as("tables created").isZero();
	}

	/**
	 * The WARN lines the test's application logged while it started, on this thread: another test class's
	 * application, still cached in this JVM, may log from its own threads (its worker's, its pool's) that its
	 * database is gone, or the pool that the machine is slow, while this test runs.
	 */
	private static List<String> warnings(CapturedOutput output) {
		String thisThread = "[" + Thread.currentThread().getName() + "]";
		return output.toString()
			.lines()
			.filter((line) -> line.contains("WARN") && line.contains(thisThread))
			.toList();
	}

	private static int lines(CapturedOutput output, String text) {
		Matcher matcher = Pattern.compile(Pattern.quote(text)).matcher(output.toString());
		int count = 0;
		while (matcher.find()) {
			count++;
		}
		return count;
	}

	static class Handlers {

		@TaskHandler(queue = "emails")
		void email(String payload) {
		}

		@TaskHandler(queue = "reports")
		void report(String payload) {
		}

	}

	static class MoreHandlers {

		@TaskHandler(queue = "audit")
		void audit(String payload) {
		}

	}

}
