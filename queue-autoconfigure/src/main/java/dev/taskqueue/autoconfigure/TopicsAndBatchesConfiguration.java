package dev.taskqueue.autoconfigure;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.DependencyRepository;
import dev.taskqueue.internal.jdbc.TaskBuckets;
import dev.taskqueue.internal.jdbc.TaskNotifications;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.jdbc.TopicRepository;
import dev.taskqueue.internal.operations.OperationsConfiguration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Fan-out topics and task batches, imported by {@link TaskQueueAutoConfiguration}: their repositories, and the
 * sweep that finishes batches on every instance with a worker (the subscriptions written at startup are the
 * operations', {@link OperationsConfiguration.Operations}).
 */
@Configuration(proxyBeanMethods = false)
class TopicsAndBatchesConfiguration {

	@Bean
	@ConditionalOnMissingBean
	TopicRepository taskQueueTopicRepository(DataSource dataSource, TaskTables tables,
			ObjectProvider<TaskNotifications> notifications, TaskBuckets buckets) {
		TaskNotifications notifying = notifications.getIfAvailable();
		return new TopicRepository(dataSource, tables, (notifying != null) ? notifying.channel() : null, buckets);
	}

	@Bean
	@ConditionalOnMissingBean
	BatchRepository taskQueueBatchRepository(DataSource dataSource, TaskTables tables,
			ObjectProvider<TaskNotifications> notifications, TaskBuckets buckets) {
		TaskNotifications notifying = notifications.getIfAvailable();
		return new BatchRepository(dataSource, tables, (notifying != null) ? notifying.channel() : null, buckets);
	}

	@Bean
	@ConditionalOnMissingBean
	DependencyRepository taskQueueDependencyRepository(DataSource dataSource, TaskTables tables,
			ObjectProvider<TaskNotifications> notifications, TaskBuckets buckets) {
		TaskNotifications notifying = notifications.getIfAvailable();
		return new DependencyRepository(dataSource, tables, (notifying != null) ? notifying.channel() : null,
				buckets);
	}

	/** The sweep that finishes batches, on every instance with a worker. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "taskqueue.worker.enabled", matchIfMissing = true)
	@Import(OperationsConfiguration.BatchSweep.class)
	static class BatchSweepConfiguration {

		@Bean
		OperationsConfiguration.SweepSettings taskQueueBatchSweepSettings(TaskQueueProperties properties) {
			return new OperationsConfiguration.SweepSettings(properties.getWorker().getPollInterval(),
					properties.getWorker().getHeartbeatInterval(), properties.getRetention().getDeadLetters());
		}

	}

}
