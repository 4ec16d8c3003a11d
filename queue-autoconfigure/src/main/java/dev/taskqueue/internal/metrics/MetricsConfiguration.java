package dev.taskqueue.internal.metrics;

import java.time.Duration;

import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.internal.support.DatabaseOutage;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The meters' beans, this package's one entry point: imported by {@code TaskQueueMetricsAutoConfiguration}, which
 * decides whether they exist and gives them their {@link Settings}.
 */
@Configuration(proxyBeanMethods = false)
public class MetricsConfiguration {

	/**
	 * What the meters take from the configuration.
	 *
	 * @param refreshInterval how often the gauges read the queues' statistics from the database
	 */
	public record Settings(Duration refreshInterval) {
	}

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
	QueueGauges taskQueueGauges(TaskQueueOperations operations, MeterRegistry meterRegistry, Settings settings,
			ObjectProvider<DatabaseOutage> outage, ObjectProvider<BloatWatch> bloat) {
		QueueGauges gauges = new QueueGauges(operations, meterRegistry, settings.refreshInterval());
		gauges.reportOutagesTo(outage.getIfAvailable(DatabaseOutage::new));
		BloatWatch watch = bloat.getIfAvailable();
		if (watch != null) { // PostgreSQL, taskqueue.bloat.enabled: one thread, one interval for both reads
			gauges.alsoRefresh(new BloatGauges(watch, meterRegistry)::refresh);
		}
		return gauges;
	}

}
