package dev.taskqueue.schedule;

import java.util.List;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueProperties;
import dev.taskqueue.handler.TaskHandlerRegistry;
import dev.taskqueue.jdbc.EnqueueRepository;
import dev.taskqueue.jdbc.ScheduleRepository;
import dev.taskqueue.jdbc.SerializationRetry;
import dev.taskqueue.jdbc.TaskTables;
import dev.taskqueue.support.DatabaseOutage;
import dev.taskqueue.support.TaskQueueListeners;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Recurring tasks: the {@code @RecurringTask} scanning, the schedules' operations and, where the worker runs, the
 * scheduler that ticks them. Nothing runs, and no SQL is sent, in an application that declares no schedule.
 */
@AutoConfiguration(after = TaskQueueAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "taskqueue.enabled", matchIfMissing = true)
@ConditionalOnBean(TaskHandlerRegistry.class)
public class RecurringTaskAutoConfiguration {

	@Bean
	static RecurringTaskAnnotationBeanPostProcessor recurringTaskAnnotationBeanPostProcessor() {
		return new RecurringTaskAnnotationBeanPostProcessor();
	}

	/** Checks the schedules before any bean is created, and so before TaskQueue migrates its tables. */
	@Bean
	static ScheduleStartupCheck taskQueueScheduleStartupCheck() {
		return new ScheduleStartupCheck();
	}

	@Bean
	static LazyInitializationExcludeFilter recurringTaskLazyInitializationExcludeFilter() {
		return new RecurringTaskLazyInitializationExcludeFilter();
	}

	@Bean
	@ConditionalOnMissingBean
	ScheduleRepository taskQueueScheduleRepository(DataSource dataSource, TaskTables tables) {
		return new ScheduleRepository(dataSource, tables);
	}

	@Bean
	TickRunner taskQueueTickRunner(ScheduleRepository schedules, EnqueueRepository tasks, DataSource dataSource,
			TaskQueueProperties properties, ObjectProvider<TaskQueueListener> listeners, SerializationRetry retry) {
		return new TickRunner(schedules, tasks, retry.transactions("schedule-tick",
				new TransactionTemplate(new DataSourceTransactionManager(dataSource))),
				new TaskQueueListeners(listeners.orderedStream().toList()),
				properties.getWorker().getSessionTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	ScheduleControl taskQueueScheduleControl(ScheduleRepository schedules, TickRunner ticks, DataSource dataSource,
			TaskQueueProperties properties, ObjectProvider<RecurringScheduler> scheduler) {
		return new ScheduleControl(schedules, ticks,
				new TransactionTemplate(new DataSourceTransactionManager(dataSource)),
				properties.getWorker().getSessionTimeout(),
				() -> scheduler.ifAvailable(RecurringScheduler::wakeUp));
	}

	@Bean
	ConfiguredSchedulePayloads taskQueueConfiguredSchedulePayloads(TaskQueueProperties properties,
			TaskHandlerRegistry handlers, ObjectProvider<JsonMapper> jsonMapper) {
		JsonMapper mapper = jsonMapper.getIfAvailable(JsonMapper::new);
		List<Schedule> configured;
		try {
			configured = ConfiguredSchedules.of(properties.getSchedules(), mapper);
		}
		catch (IllegalArgumentException ex) {
			configured = List.of(); // said by the scheduler's own check, with its report
		}
		return new ConfiguredSchedulePayloads(configured, handlers, mapper);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "taskqueue.worker.enabled", matchIfMissing = true)
	@DependsOnDatabaseInitialization
	RecurringScheduler taskQueueRecurringScheduler(RecurringTaskAnnotationBeanPostProcessor annotated,
			ScheduleRepository schedules, TickRunner ticks, TaskQueueProperties properties,
			ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<DatabaseOutage> outage) {
		List<Schedule> all;
		try {
			all = ConfiguredSchedules.merge(annotated.getSchedules(),
					ConfiguredSchedules.of(properties.getSchedules(), jsonMapper.getIfAvailable(JsonMapper::new)));
		}
		catch (IllegalArgumentException ex) {
			throw ConfiguredSchedules.failure(ex);
		}
		RecurringScheduler scheduler = new RecurringScheduler(all, schedules, ticks,
				properties.getWorker().getPollInterval(), properties.getWorker().getHeartbeatInterval());
		scheduler.reportOutagesTo(outage.getIfAvailable(DatabaseOutage::new));
		return scheduler;
	}

}
