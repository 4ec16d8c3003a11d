package dev.taskqueue.autoconfigure;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskBuckets;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The database TaskQueue runs on ({@link DatabaseResolution}) and the retry of serialization failures, imported by
 * {@link TaskQueueAutoConfiguration}. A {@link DatabaseDialect} bean of the application's own replaces detection
 * (the tests use one to run the code paths of CockroachDB and YugabyteDB on PostgreSQL).
 */
@Configuration(proxyBeanMethods = false)
class DatabaseConfiguration {

	@Bean
	@ConditionalOnMissingBean
	DatabaseDialect taskQueueDatabaseDialect(DataSource dataSource, TaskQueueProperties properties,
			Environment environment) {
		return DatabaseResolution.resolve(dataSource, properties.getDatabase(), properties.getNotify().isEnabled(),
				environment.containsProperty("taskqueue.notify.enabled"));
	}

	/** The bucket count of every queue, its own or the database's default; where new tasks go and claims start. */
	@Bean
	@ConditionalOnMissingBean
	TaskBuckets taskQueueBuckets(TaskQueueProperties properties, DatabaseDialect dialect) {
		return QueueSettingsResolver.buckets(properties, dialect.database().defaultBuckets());
	}

	@Bean
	@ConditionalOnMissingBean
	SerializationRetry taskQueueSerializationRetry(TaskQueueProperties properties) {
		SerializationRetryProperties retry = properties.getSerializationRetry();
		return new SerializationRetry(retry.getMaxAttempts(), retry.getInitialDelay(), retry.getMaxDelay());
	}

}
