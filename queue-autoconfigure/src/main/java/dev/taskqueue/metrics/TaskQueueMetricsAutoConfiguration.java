package dev.taskqueue.metrics;

import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueProperties;
import dev.taskqueue.jdbc.SerializationRetry;
import dev.taskqueue.support.DatabaseOutage;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;

/**
 * Publishes TaskQueue's meters when the application has a Micrometer {@link MeterRegistry}: counters and timers
 * per queue from what this instance does, and gauges per queue from the database. Spring Boot's
 * {@code management.metrics.distribution.*} properties apply to the timers by name, like to any other.
 */
@AutoConfiguration(after = TaskQueueAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, TaskQueueOperations.class })
public class TaskQueueMetricsAutoConfiguration {

	@Bean
	TaskQueueListener taskQueueMetricsListener(MeterRegistry meterRegistry) {
		return new TaskQueueMetricsListener(meterRegistry);
	}

	@Bean
	@ConditionalOnBean(SerializationRetry.class)
	SerializationRetryCounter taskQueueSerializationRetryCounter(SerializationRetry retry,
			MeterRegistry meterRegistry) {
		return new SerializationRetryCounter(retry, meterRegistry);
	}

	@Bean
	@DependsOnDatabaseInitialization
	QueueGauges taskQueueGauges(TaskQueueOperations operations, MeterRegistry meterRegistry,
			TaskQueueProperties properties, ObjectProvider<DatabaseOutage> outage) {
		QueueGauges gauges = new QueueGauges(operations, meterRegistry, properties.getMetrics().getRefreshInterval());
		gauges.reportOutagesTo(outage.getIfAvailable(DatabaseOutage::new));
		return gauges;
	}

}
