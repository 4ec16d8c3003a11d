package dev.taskqueue.internal.schedule;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import javax.sql.DataSource;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.support.CallerTransactions;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.TaskQueueListeners;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * This package's one entry point: the configurations of recurring tasks that {@code RecurringTaskAutoConfiguration}
 * imports, which decides whether they exist and gives them their {@link Settings}: {@link Beans} wherever recurring
 * tasks are on, {@link Scheduler} only where the worker runs. Not a configuration itself, so that importing one of
 * them does not bring the other.
 */
public final class RecurringTaskConfiguration {

	private RecurringTaskConfiguration() {
	}

	/**
	 * What recurring tasks take from the configuration.
	 *
	 * @param sessionTimeout how long an instance's session lasts without a heartbeat
	 * @param pollInterval how often the scheduler looks for due ticks at most
	 * @param heartbeatInterval how often the scheduler's session is kept alive
	 * @param schedules the schedules declared in configuration, by name
	 */
	public record Settings(Duration sessionTimeout, Duration pollInterval, Duration heartbeatInterval,
			Map<String, ScheduleSettings> schedules) {

		public Settings {
			schedules = Collections.unmodifiableMap(new LinkedHashMap<>(schedules)); // in the order declared
		}

	}

	/**
	 * One schedule declared in configuration ({@code taskqueue.schedules.<name>}), unchecked.
	 *
	 * @param cron a cron expression, or {@code null}
	 * @param zone the cron expression's time zone, or {@code null} for UTC
	 * @param fixedRate the time from one tick to the next, or {@code null}
	 * @param fixedDelay the time from the end of one tick's task to the next tick, or {@code null}
	 * @param queue the queue each tick enqueues on
	 * @param payload each tick's payload, as JSON text
	 * @param missed what to do with ticks whose time passed while no instance ran
	 * @param overlap what to do with a tick while the previous one's task still waits or runs
	 */
	public record ScheduleSettings(@Nullable String cron, @Nullable String zone, @Nullable Duration fixedRate,
			@Nullable Duration fixedDelay, @Nullable String queue, String payload, RecurringTask.Missed missed,
			RecurringTask.Overlap overlap) {
	}

	/**
	 * The check of every schedule before any bean is created; {@code configured} reads the configured schedules
	 * from the environment (none when they do not bind).
	 */
	public static BeanFactoryPostProcessor startupCheck(
			Function<Environment, Map<String, ScheduleSettings>> configured) {
		return new ScheduleStartupCheck(configured);
	}

	/** Scanning, ticks and the schedules' operations, in every instance where recurring tasks are on. */
	@Configuration(proxyBeanMethods = false)
	public static class Beans {

		@Bean
		static RecurringTaskAnnotationBeanPostProcessor recurringTaskAnnotationBeanPostProcessor() {
			return new RecurringTaskAnnotationBeanPostProcessor();
		}

		@Bean
		static LazyInitializationExcludeFilter recurringTaskLazyInitializationExcludeFilter() {
			return new RecurringTaskLazyInitializationExcludeFilter();
		}

		@Bean
		ScheduleRepository taskQueueScheduleRepository(DataSource dataSource, TaskTables tables) {
			return new ScheduleRepository(dataSource, tables);
		}

		@Bean
		TickRunner taskQueueTickRunner(ScheduleRepository schedules, EnqueueRepository tasks, DataSource dataSource,
				Settings settings, ObjectProvider<TaskQueueListener> listeners, SerializationRetry retry) {
			return new TickRunner(schedules, tasks, retry.transactions("schedule-tick",
					new TransactionTemplate(new DataSourceTransactionManager(dataSource))),
					new TaskQueueListeners(listeners.orderedStream().toList()), settings.sessionTimeout());
		}

		@Bean
		@ConditionalOnMissingBean
		ScheduleControl taskQueueScheduleControl(ScheduleRepository schedules, TickRunner ticks, DataSource dataSource,
				Settings settings, ObjectProvider<RecurringScheduler> scheduler,
				ObjectProvider<PlatformTransactionManager> transactionManager) {
			// Pause, resume and trigger may be called in the application's transaction: they join it.
			return new ScheduleControl(schedules, ticks,
					new CallerTransactions(dataSource, transactionManager.getIfUnique()), settings.sessionTimeout(),
					() -> scheduler.ifAvailable(RecurringScheduler::wakeUp));
		}

		@Bean
		ConfiguredSchedulePayloads taskQueueConfiguredSchedulePayloads(Settings settings, TaskHandlerRegistry handlers,
				ObjectProvider<JsonMapper> jsonMapper) {
			JsonMapper mapper = jsonMapper.getIfAvailable(JsonMapper::new);
			List<Schedule> configured;
			try {
				configured = ConfiguredSchedules.of(settings.schedules(), mapper);
			}
			catch (IllegalArgumentException ex) {
				configured = List.of(); // said by the scheduler's own check, with its report
			}
			return new ConfiguredSchedulePayloads(configured, handlers, mapper);
		}

	}

	/** The scheduler thread, for an instance that runs the worker. */
	@Configuration(proxyBeanMethods = false)
	public static class Scheduler {

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		RecurringScheduler taskQueueRecurringScheduler(RecurringTaskAnnotationBeanPostProcessor annotated,
				ScheduleRepository schedules, TickRunner ticks, Settings settings,
				ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<DatabaseOutage> outage) {
			List<Schedule> all;
			try {
				all = ConfiguredSchedules.merge(annotated.getSchedules(), ConfiguredSchedules
					.of(settings.schedules(), jsonMapper.getIfAvailable(JsonMapper::new)));
			}
			catch (IllegalArgumentException ex) {
				throw ConfiguredSchedules.failure(ex);
			}
			RecurringScheduler scheduler = new RecurringScheduler(all, schedules, ticks, settings.pollInterval(),
					settings.heartbeatInterval());
			scheduler.reportOutagesTo(outage.getIfAvailable(DatabaseOutage::new));
			return scheduler;
		}

	}

}
