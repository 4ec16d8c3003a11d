package dev.taskqueue.autoconfigure;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.actuate.TaskQueueHealthIndicator;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.internal.worker.TaskWorker;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Adds the {@code taskqueue} health indicator when Spring Boot's health support is on the class path; turn it off
 * with {@code management.health.taskqueue.enabled=false}.
 */
@AutoConfiguration(after = TaskQueueAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean({ TaskQueueOperations.class, TaskHandlerRegistry.class })
public class TaskQueueHealthContributorAutoConfiguration {

	// Nested: its condition's class is only loaded once the class condition above has found spring-boot-health.
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnEnabledHealthIndicator("taskqueue")
	static class HealthIndicatorConfiguration {

		/** Named so that the health contributor is called {@code taskqueue}. */
		@Bean
		@ConditionalOnMissingBean(name = "taskqueueHealthIndicator")
		HealthIndicator taskqueueHealthIndicator(TaskQueueOperations operations, ObjectProvider<TaskWorker> worker,
				TaskHandlerRegistry handlers, TaskQueueProperties properties, ObjectProvider<BloatWatch> bloat) {
			return new TaskQueueHealthIndicator(operations, worker.getIfUnique(), handlers,
					properties.getWorker().getHeartbeatInterval(), properties.getWorker().getSessionTimeout(),
					properties.getHealth().getTimeout(), bloat.getIfAvailable());
		}

	}

}
