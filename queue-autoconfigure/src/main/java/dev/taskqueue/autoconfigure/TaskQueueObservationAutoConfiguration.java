package dev.taskqueue.autoconfigure;

import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.observation.TaskQueueObservations;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Observes handlers as {@code taskqueue.handle} when the application has an {@link ObservationRegistry} (Spring
 * Boot's actuator provides one). The {@code taskqueue.enqueue} observation needs no bean: the {@code TaskQueue}
 * takes the registry itself.
 */
@AutoConfiguration(after = TaskQueueAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, TaskTables.class })
public class TaskQueueObservationAutoConfiguration {

	@Bean
	TaskHandlerInterceptor taskQueueObservationInterceptor(ObservationRegistry observationRegistry) {
		return TaskQueueObservations.handlerInterceptor(observationRegistry);
	}

}
