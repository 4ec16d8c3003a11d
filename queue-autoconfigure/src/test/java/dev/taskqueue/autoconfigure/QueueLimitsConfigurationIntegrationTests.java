package dev.taskqueue.autoconfigure;

import java.time.Duration;

import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.test.PropertyFailures;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cluster-wide limits of a queue are checked at startup, with messages that name the property at fault.
 */
class QueueLimitsConfigurationIntegrationTests {

	private static final String url = TestDatabase.createDatabase();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
				JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + url);

	@Test
	void limitsAreBound() {
		this.runner
			.withPropertyValues("taskqueue.queues.api.global-concurrency=5", "taskqueue.queues.api.rate-limit.limit=100",
					"taskqueue.queues.api.rate-limit.period=1s", "taskqueue.queues.plain.concurrency=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(QueueSettingsResolver.limits(context.getBean(TaskQueueProperties.class)))
					.containsExactly(org.assertj.core.api.Assertions.entry("api",
							new QueueLimits(5, 100, Duration.ofSeconds(1))));
			});
	}

	@Test
	void zeroGlobalConcurrencyFails() {
		assertStartupFails("taskqueue.queues.api.global-concurrency=0",
				"taskqueue.queues.api.global-concurrency: must be at least 1");
	}

	@Test
	void zeroRateLimitFails() {
		this.runner
			.withPropertyValues("taskqueue.queues.api.rate-limit.limit=0", "taskqueue.queues.api.rate-limit.period=1s")
			.run((context) -> assertFailure(context.getStartupFailure(),
					"taskqueue.queues.api.rate-limit.limit: must be at least 1"));
	}

	@Test
	void zeroRatePeriodFails() {
		this.runner
			.withPropertyValues("taskqueue.queues.api.rate-limit.limit=10", "taskqueue.queues.api.rate-limit.period=0s")
			.run((context) -> assertFailure(context.getStartupFailure(),
					"taskqueue.queues.api.rate-limit.period: must be at least 1ms"));
	}

	@Test
	void rateLimitWithoutPeriodFails() {
		assertStartupFails("taskqueue.queues.api.rate-limit.limit=10",
				"taskqueue.queues.api.rate-limit.limit: needs taskqueue.queues.api.rate-limit.period as well: a "
						+ "rate limit is a limit per period");
	}

	@Test
	void ratePeriodWithoutLimitFailsNamingTheQueueInBrackets() {
		assertStartupFails("taskqueue.queues[billing.v2].rate-limit.period=1s",
				"taskqueue.queues[billing.v2].rate-limit.period: needs "
						+ "taskqueue.queues[billing.v2].rate-limit.limit as well: a rate limit is a limit per period");
	}

	private void assertStartupFails(String property, String message) {
		this.runner.withPropertyValues(property).run((context) -> assertFailure(context.getStartupFailure(), message));
	}

	private static void assertFailure(Throwable failure, String message) {
		assertThat(PropertyFailures.refusals(failure)).containsExactly(message);
	}

}
