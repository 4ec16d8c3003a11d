package dev.taskqueue.autoconfigure;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.internal.metrics.MetricsConfiguration;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

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
@Import(MetricsConfiguration.class)
public class TaskQueueMetricsAutoConfiguration {

	@Bean
	MetricsConfiguration.Settings taskQueueMetricsSettings(TaskQueueProperties properties) {
		return new MetricsConfiguration.Settings(properties.getMetrics().getRefreshInterval());
	}

}
