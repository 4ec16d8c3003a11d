package dev.taskqueue.internal.operations;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.DeadTaskRepository;
import dev.taskqueue.internal.jdbc.DependencyRepository;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.QueueRepository;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskBuckets;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.jdbc.TopicRepository;
import dev.taskqueue.internal.schedule.ScheduleControl;
import dev.taskqueue.internal.support.CallerTransactions;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.worker.TaskWorker;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * This package's one entry point: the operations' configurations, which {@code TaskQueueAutoConfiguration} imports
 * and gives their settings, built from the properties. {@link Operations}, in every instance: the
 * {@link TaskQueueOperations}, the retention pruner and the topics' subscriptions; {@link Bloat}, unless turned off:
 * the task tables' {@link BloatWatch}; {@link BatchSweep}, wherever a worker runs: the sweep that finishes batches
 * and releases dependent tasks. Not a configuration itself, so that importing one of them does not bring the others.
 * What other packages use besides: the {@link BloatWatch} reports, the audit log's {@link ActingAs} and the kept
 * {@link #results}.
 */
public final class OperationsConfiguration {

	private OperationsConfiguration() {
	}

	/**
	 * How the actuator endpoint reads a task's kept result ({@code taskqueue_result}): the task's queue (which its
	 * redactor asks for) and the result as JSON text, if the task completed with one that is still kept.
	 */
	public static Function<UUID, Optional<Map.Entry<String, String>>> results(DataSource dataSource,
			TaskTables tables) {
		ResultRepository results = new ResultRepository(dataSource, tables);
		return (id) -> results.read(id).map((kept) -> Map.entry(kept.queue(), kept.json()));
	}

	/**
	 * What the producer calls when it has enqueued a batch or a task waiting for others: wakes this instance's batch
	 * sweeper, if it runs one.
	 */
	public static Runnable batchEnqueued(BeanFactory beans) {
		ObjectProvider<BatchSweeper> sweepers = beans.getBeanProvider(BatchSweeper.class);
		return () -> sweepers.orderedStream().forEach(BatchSweeper::batchEnqueued);
	}

	/** The operations, the retention pruner and the topics' subscriptions, in every instance. */
	@Configuration(proxyBeanMethods = false)
	public static class Operations {

		@Bean
		@ConditionalOnMissingBean
		TaskQueueOperations taskQueueOperations(OperationsSettings settings, DataSource dataSource, TaskTables tables,
				QueueRepository queues, TaskHandlerRegistry registry, ObjectProvider<TaskWorker> worker,
				DatabaseDialect dialect, SerializationRetry retry, ObjectProvider<ScheduleControl> schedules,
				BatchRepository batches, TaskBuckets buckets,
				ObjectProvider<PlatformTransactionManager> transactionManager, ObjectProvider<JsonMapper> jsonMapper) {
			return new DefaultTaskQueueOperations(queues, new DeadTaskRepository(dataSource, tables, buckets),
					new CallerTransactions(dataSource, transactionManager.getIfUnique()), settings.countLimit(),
					() -> registry.all().stream().map(TaskHandlerMethod::queue).collect(Collectors.toSet()),
					(queue, paused) -> worker.orderedStream().forEach((w) -> w.pauseChanged(queue, paused)),
					TaskWorker.builder(registry, dataSource, tables)
						.database(dialect, retry, settings.history())
						.rateWindowStarts(),
					settings.limits(), schedules.getIfAvailable(), batches, dataSource, tables,
					new ProgressQueries(dataSource, tables), new ResultRepository(dataSource, tables),
					jsonMapper.getIfAvailable(JsonMapper::new));
		}

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		RetentionPruner taskQueueRetentionPruner(DataSource dataSource, TaskTables tables, RetentionSettings settings,
				ObjectProvider<DatabaseOutage> outage) {
			RetentionPruner pruner = new RetentionPruner(dataSource, tables, settings.deadLetters(),
					settings.history(), settings.pruneInterval())
				.pruningProgressAndResults(new ProgressQueries(dataSource, tables),
						new ResultRepository(dataSource, tables));
			pruner.reportOutagesTo(outage.getIfAvailable(DatabaseOutage::new));
			return pruner;
		}

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		TopicSubscriptions taskQueueTopicSubscriptions(TaskHandlerRegistry registry, TopicRepository topics,
				DataSource dataSource) {
			return new TopicSubscriptions(registry, topics, transactions(dataSource));
		}

	}

	/**
	 * The task tables' bloat figures (docs/operations.md#bloat), imported unless {@code taskqueue.bloat.enabled} is
	 * false; null (no bean: every user asks getIfAvailable) on CockroachDB and YugabyteDB, which have no VACUUM.
	 */
	@Configuration(proxyBeanMethods = false)
	public static class Bloat {

		@Bean
		@ConditionalOnMissingBean
		@Nullable BloatWatch taskQueueBloatWatch(DataSource dataSource, TaskTables tables, DatabaseDialect dialect,
				BloatSettings settings) {
			if (dialect.database() != Database.POSTGRESQL) {
				return null;
			}
			return new BloatWatch(dataSource, tables, settings.thresholds(), settings.refreshInterval());
		}

	}

	/** The sweep that finishes batches and releases dependent tasks, imported wherever a worker runs. */
	@Configuration(proxyBeanMethods = false)
	public static class BatchSweep {

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		BatchSweeper taskQueueBatchSweeper(BatchRepository batches, DependencyRepository dependencies,
				DataSource dataSource, SweepSettings settings, SerializationRetry retry,
				ObjectProvider<DatabaseOutage> outage) {
			BatchSweeper sweeper = new BatchSweeper(batches, dependencies,
					retry.transactions("batch-sweep", transactions(dataSource)), settings.fast(), settings.slow(),
					settings.keepFinished());
			sweeper.reportOutagesTo(outage.getIfAvailable(DatabaseOutage::new));
			return sweeper;
		}

	}

	private static TransactionTemplate transactions(DataSource dataSource) {
		return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	/**
	 * What the operations take from the configuration.
	 *
	 * @param countLimit the count at which the statistics stop counting
	 * @param history whether completed tasks are kept as history (how the rate limits' windows are read)
	 * @param limits the limits of each queue that has some, by queue name
	 */
	public record OperationsSettings(int countLimit, boolean history, Map<String, QueueLimits> limits) {
	}

	/**
	 * What the retention pruner takes from the configuration.
	 *
	 * @param deadLetters how long dead letters (and the audit log) are kept
	 * @param history how long history rows (and results) are kept
	 * @param pruneInterval how often to prune
	 */
	public record RetentionSettings(Duration deadLetters, Duration history, Duration pruneInterval) {
	}

	/**
	 * What the bloat watch takes from the configuration.
	 *
	 * @param thresholds when a figure becomes a warning
	 * @param refreshInterval how often the figures are read
	 */
	public record BloatSettings(BloatWatch.Thresholds thresholds, Duration refreshInterval) {
	}

	/**
	 * What the batch sweeper takes from the configuration.
	 *
	 * @param fast how often to look while a batch is open
	 * @param slow how often to look while none is
	 * @param keepFinished how long finished batches are kept for their progress to be read
	 */
	public record SweepSettings(Duration fast, Duration slow, Duration keepFinished) {
	}

}
