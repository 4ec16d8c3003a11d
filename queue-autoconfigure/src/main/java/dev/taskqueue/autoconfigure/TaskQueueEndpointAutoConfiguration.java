package dev.taskqueue.autoconfigure;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.actuate.TaskQueueEndpoint;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.internal.operations.OperationsConfiguration;
import dev.taskqueue.internal.support.Redaction;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Adds the {@code taskqueue} actuator endpoint when the actuator is on the class path and the endpoint is exposed
 * ({@code management.endpoints.web.exposure.include=taskqueue}). The endpoint is read-only by default: its write
 * operations change every instance, so an application opts in with
 * {@code management.endpoint.taskqueue.access=unrestricted}, behind security.
 */
@AutoConfiguration(after = TaskQueueAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(TaskQueueOperations.class)
public class TaskQueueEndpointAutoConfiguration {

	// Nested: its condition's class is only loaded once the class condition above has found the actuator.
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnAvailableEndpoint(TaskQueueEndpoint.class)
	@EnableConfigurationProperties(TaskQueueEndpointProperties.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		TaskQueueEndpoint taskQueueEndpoint(TaskQueueOperations operations,
				ObjectProvider<DatabaseDialect> database, ObjectProvider<TaskRedactor> redactor,
				TaskQueueProperties properties, TaskQueueEndpointProperties endpoint, ObjectProvider<BloatWatch> bloat,
				DataSource dataSource, TaskTables tables) {
			return new TaskQueueEndpoint(operations, database.getIfAvailable(), Redaction.effective(
					redactor.getIfAvailable(() -> TaskRedactor.NONE), properties.getRedaction().isHidePayloads()),
					bloat.getIfAvailable(), OperationsConfiguration.results(dataSource, tables))
				.showingValues(endpoint.getShowValues(), endpoint.getRoles());
		}

	}

}
