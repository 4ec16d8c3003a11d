package dev.taskqueue.actuate;

import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueEndpointAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueHealthContributorAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueMetricsAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueObservationAutoConfiguration;
import dev.taskqueue.internal.operations.OperationsBeans;
import dev.taskqueue.test.PropertyFailures;
import dev.taskqueue.test.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the metrics, observation, health and endpoint auto-configurations apply, and when they back off.
 */
class ObservabilityAutoConfigurationIntegrationTests {

	private static final String url = TestDatabase.createDatabase();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
				JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class,
				TaskQueueMetricsAutoConfiguration.class, TaskQueueObservationAutoConfiguration.class,
				TaskQueueHealthContributorAutoConfiguration.class, EndpointAutoConfiguration.class,
				TaskQueueEndpointAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + url, "taskqueue.worker.enabled=false");

	@Test
	void operationsAndRetentionAlwaysHealthWithTheActuatorOnTheClassPath() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(TaskQueueOperations.class)
			.hasBean(OperationsBeans.RETENTION_PRUNER)
			.hasBean("taskqueueHealthIndicator")
			.doesNotHaveBean("taskQueueMetricsListener")
			.doesNotHaveBean(TaskHandlerInterceptor.class)
			.doesNotHaveBean(TaskQueueEndpoint.class));
	}

	@Test
	void metricsNeedAMeterRegistry() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> assertThat(context).hasBean("taskQueueMetricsListener").hasBean("taskQueueGauges"));
	}

	@Test
	void metricsBackOffWithoutMicrometer() {
		this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("taskQueueMetricsListener")
				.hasSingleBean(TaskHandlerInterceptor.class));
	}

	@Test
	void handlerObservationsNeedAnObservationRegistry() {
		this.runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.run((context) -> assertThat(context).hasSingleBean(TaskHandlerInterceptor.class));
	}

	@Test
	void healthAndEndpointBackOffWithoutTheActuator() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
					JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class,
					TaskQueueHealthContributorAutoConfiguration.class, TaskQueueEndpointAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + url, "taskqueue.worker.enabled=false",
					"management.endpoints.web.exposure.include=taskqueue")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.health",
					"org.springframework.boot.actuate"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(TaskQueueOperations.class)
				.doesNotHaveBean("taskqueueHealthIndicator"));
	}

	@Test
	void endpointWhenExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=taskqueue")
			.run((context) -> assertThat(context).hasSingleBean(TaskQueueEndpoint.class));
	}

	@Test
	void healthIndicatorCanBeTurnedOff() {
		this.runner.withPropertyValues("management.health.taskqueue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(HealthIndicator.class));
	}

	@Test
	void everythingBacksOffWhenTaskQueueIsDisabled() {
		this.runner.withPropertyValues("taskqueue.enabled=false", "management.endpoints.web.exposure.include=taskqueue")
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(TaskQueueOperations.class)
				.doesNotHaveBean(TaskQueueListener.class)
				.doesNotHaveBean(TaskHandlerInterceptor.class)
				.doesNotHaveBean(HealthIndicator.class)
				.doesNotHaveBean(TaskQueueEndpoint.class));
	}

	@Test
	void invalidPropertiesStopTheApplicationNamingTheProperty() {
		assertStartupFails("taskqueue.metrics.refresh-interval=0s",
				"taskqueue.metrics.refresh-interval: must be a positive duration");
		assertStartupFails("taskqueue.metrics.count-limit=0",
				"taskqueue.metrics.count-limit: must be at least 1");
		assertStartupFails("taskqueue.retention.dead-letters=-1d",
				"taskqueue.retention.dead-letters: must be a positive duration");
		assertStartupFails("taskqueue.retention.history=0s",
				"taskqueue.retention.history: must be a positive duration");
		assertStartupFails("taskqueue.retention.prune-interval=0s",
				"taskqueue.retention.prune-interval: must be a positive duration");
	}

	private void assertStartupFails(String property, String refusal) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(PropertyFailures.refusals(context.getStartupFailure())).containsExactly(refusal);
		});
	}

}
