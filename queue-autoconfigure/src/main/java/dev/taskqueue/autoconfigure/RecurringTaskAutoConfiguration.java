package dev.taskqueue.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.schedule.RecurringTaskConfiguration;
import dev.taskqueue.internal.schedule.RecurringTaskConfiguration.ScheduleSettings;
import dev.taskqueue.internal.schedule.RecurringTaskConfiguration.Settings;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Recurring tasks: the {@code @RecurringTask} scanning, the schedules' operations and, where the worker runs, the
 * scheduler that ticks them. Nothing runs, and no SQL is sent, in an application that declares no schedule.
 */
@AutoConfiguration(after = TaskQueueAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "taskqueue.enabled", matchIfMissing = true)
@ConditionalOnBean(TaskHandlerRegistry.class)
@Import(RecurringTaskConfiguration.Beans.class)
public class RecurringTaskAutoConfiguration {

	/**
	 * Checks the schedules before any bean is created, and so before TaskQueue migrates its tables; it binds
	 * {@code taskqueue.schedules} itself, since the properties bean does not exist yet.
	 */
	@Bean
	static BeanFactoryPostProcessor taskQueueScheduleStartupCheck() {
		return RecurringTaskConfiguration.startupCheck((environment) -> settingsOf(Binder.get(environment)
			.bind("taskqueue.schedules", Bindable.mapOf(String.class, ScheduleProperties.class))
			.orElse(Map.of())));
	}

	@Bean
	Settings taskQueueRecurringTaskSettings(TaskQueueProperties properties) {
		WorkerProperties worker = properties.getWorker();
		return new Settings(worker.getSessionTimeout(), worker.getPollInterval(), worker.getHeartbeatInterval(),
				settingsOf(properties.getSchedules()));
	}

	static Map<String, ScheduleSettings> settingsOf(Map<String, ScheduleProperties> schedules) {
		Map<String, ScheduleSettings> settings = new LinkedHashMap<>();
		schedules.forEach((name, schedule) -> settings.put(name,
				new ScheduleSettings(schedule.getCron(), schedule.getZone(), schedule.getFixedRate(),
						schedule.getFixedDelay(), schedule.getQueue(), schedule.getPayload(), schedule.getMissed(),
						schedule.getOverlap())));
		return settings;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "taskqueue.worker.enabled", matchIfMissing = true)
	@Import(RecurringTaskConfiguration.Scheduler.class)
	static class SchedulerConfiguration {

	}

}
