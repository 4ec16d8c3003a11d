package dev.taskqueue.autoconfigure;

import javax.sql.DataSource;

import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskBuckets;
import dev.taskqueue.internal.jdbc.TaskNotifications;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.jdbc.TopicRepository;
import dev.taskqueue.internal.operations.BatchSweeper;
import dev.taskqueue.internal.operations.TopicSubscriptions;
import dev.taskqueue.internal.support.DatabaseOutage;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Fan-out topics and task batches, imported by {@link TaskQueueAutoConfiguration}: their repositories, the
 * subscriptions written at startup, and the sweep that finishes batches on every instance with a worker.
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
	@DependsOnDatabaseInitialization
	TopicSubscriptions taskQueueTopicSubscriptions(TaskHandlerRegistry registry, TopicRepository topics,
			DataSource dataSource) {
		return new TopicSubscriptions(registry, topics, transactions(dataSource));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "taskqueue.worker.enabled", matchIfMissing = true)
	@DependsOnDatabaseInitialization
	BatchSweeper taskQueueBatchSweeper(BatchRepository batches, DataSource dataSource,
			TaskQueueProperties properties, SerializationRetry retry, ObjectProvider<DatabaseOutage> outage) {
		BatchSweeper sweeper = new BatchSweeper(batches,
				retry.transactions("batch-sweep", transactions(dataSource)), properties.getWorker().getPollInterval(),
				properties.getWorker().getHeartbeatInterval(), properties.getRetention().getDeadLetters());
		sweeper.reportOutagesTo(outage.getIfAvailable(DatabaseOutage::new));
		return sweeper;
	}

	private static TransactionTemplate transactions(DataSource dataSource) {
		return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

}
