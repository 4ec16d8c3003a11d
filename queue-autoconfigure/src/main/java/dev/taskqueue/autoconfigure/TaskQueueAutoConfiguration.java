package dev.taskqueue.autoconfigure;

import java.lang.management.ManagementFactory;

import javax.sql.DataSource;

import dev.taskqueue.RetryPolicy;
import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.DependencyRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.QueueRepository;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskBuckets;
import dev.taskqueue.internal.jdbc.TaskNotifications;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.jdbc.TopicRepository;
import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.internal.operations.OperationsConfiguration;
import dev.taskqueue.internal.producer.DefaultTaskQueue;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.TaskQueueListeners;
import dev.taskqueue.internal.worker.TaskRunner;
import dev.taskqueue.internal.worker.TaskWorker;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.thread.Threading;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Configures TaskQueue on the application's {@link DataSource}: the schema migration, the {@link TaskQueue}, the
 * handler scanning and, unless {@code taskqueue.worker.enabled=false}, the worker.
 */
@AutoConfiguration(after = { DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
		TransactionAutoConfiguration.class, JacksonAutoConfiguration.class },
		afterName = { "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
				"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration" })
@ConditionalOnClass({ JdbcClient.class, JsonMapper.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "taskqueue.enabled", matchIfMissing = true)
@EnableConfigurationProperties(TaskQueueProperties.class)
// Makes @DependsOnDatabaseInitialization work even when no other auto-configuration imports it.
@Import({ DatabaseInitializationDependencyConfigurer.class, DatabaseConfiguration.class,
		TopicsAndBatchesConfiguration.class, OperationsConfiguration.Operations.class })
public class TaskQueueAutoConfiguration {

	@Bean
	static BeanPostProcessor taskHandlerAnnotationBeanPostProcessor() {
		return TaskHandlerRegistry.annotationProcessor();
	}

	@Bean
	static UnknownPropertyCheck taskQueueUnknownPropertyCheck() {
		return new UnknownPropertyCheck();
	}

	@Bean
	static LazyInitializationExcludeFilter taskHandlerLazyInitializationExcludeFilter() {
		return TaskHandlerRegistry.lazyInitializationExcludeFilter();
	}

	@Bean
	TaskHandlerRegistry taskHandlerRegistry(BeanFactory beans) {
		return TaskHandlerRegistry.of(beans);
	}

	@Bean
	UnhandledQueueSettings taskQueueUnhandledQueueSettings(TaskQueueProperties properties,
			TaskHandlerRegistry registry) {
		return new UnhandledQueueSettings(properties, registry);
	}

	/** Shows payloads and errors as stored, unless the application declares its own (docs/dashboard.md). */
	@Bean
	@ConditionalOnMissingBean
	TaskRedactor taskRedactor() {
		return TaskRedactor.NONE;
	}

	@Bean
	@ConditionalOnMissingBean
	TaskTables taskQueueTables(TaskQueueProperties properties) {
		return TaskTables.inSchema(properties.getSchema().getName());
	}

	@Bean
	@ConditionalOnBooleanProperty(name = "taskqueue.schema.migrate", matchIfMissing = true)
	@ConditionalOnMissingBean
	TaskQueueSchemaMigrator taskQueueSchemaMigrator(DataSource dataSource, TaskTables tables,
			DatabaseDialect dialect) {
		return new TaskQueueSchemaMigrator(dataSource, tables, dialect.advisoryLocks());
	}

	@Bean
	@ConditionalOnMissingBean
	EnqueueRepository taskQueueEnqueueRepository(DataSource dataSource, TaskTables tables,
			ObjectProvider<TaskNotifications> notifications, TaskBuckets buckets, DatabaseDialect dialect) {
		TaskNotifications notifying = notifications.getIfAvailable();
		EnqueueRepository repository = new EnqueueRepository(dataSource, tables,
				(notifying != null) ? notifying.channel() : null, buckets);
		// The fair claim locks what it reads FOR UPDATE SKIP LOCKED; CockroachDB's claims do not (docs/fairness.md).
		return (dialect.database() == Database.COCKROACHDB) ? repository.refusingFairnessKeys(
				"CockroachDB's workers cannot claim fairly: fairness keys need PostgreSQL or YugabyteDB "
						+ "(docs/fairness.md)") : repository;
	}

	@Bean
	@ConditionalOnMissingBean
	QueueRepository taskQueueQueueRepository(DataSource dataSource, TaskTables tables, TaskQueueProperties properties,
			ObjectProvider<TaskNotifications> notifications) {
		TaskNotifications notifying = notifications.getIfAvailable();
		return new QueueRepository(dataSource, tables, properties.getHistory().isEnabled(),
				(notifying != null) ? notifying.channel() : null);
	}

	@Bean
	OperationsConfiguration.OperationsSettings taskQueueOperationsSettings(TaskQueueProperties properties) {
		return new OperationsConfiguration.OperationsSettings(properties.getMetrics().getCountLimit(),
				properties.getHistory().isEnabled(), QueueSettingsResolver.limits(properties));
	}

	@Bean
	OperationsConfiguration.RetentionSettings taskQueueRetentionSettings(TaskQueueProperties properties) {
		TaskQueueProperties.Retention retention = properties.getRetention();
		return new OperationsConfiguration.RetentionSettings(retention.getDeadLetters(), retention.getHistory(),
				retention.getPruneInterval());
	}

	/** One per instance: its background loops say an outage of the database once, together (support.DatabaseOutage). */
	@Bean
	@ConditionalOnMissingBean
	DatabaseOutage taskQueueDatabaseOutage() {
		return new DatabaseOutage();
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	TaskQueue taskQueue(EnqueueRepository enqueueRepository, ObjectProvider<JsonMapper> jsonMapper,
			ObjectProvider<TaskQueueListener> listeners, ObjectProvider<ObservationRegistry> observationRegistry,
			TopicRepository topics, BatchRepository batches, DependencyRepository dependencies,
			SerializationRetry retry, TaskQueueProperties properties, BeanFactory beanFactory) {
		return new DefaultTaskQueue(enqueueRepository, jsonMapper.getIfAvailable(JsonMapper::new),
				new TaskQueueListeners(listeners.orderedStream().toList()),
				observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP), topics, batches, dependencies,
				OperationsConfiguration.batchEnqueued(beanFactory))
			.retrying(retry)
			.limitingPayloads(properties.getMaxPayloadSize());
	}

	/**
	 * The retry policy of every queue that names none in {@code @TaskHandler(retryPolicy = ...)}: exponential backoff
	 * from {@code taskqueue.retry.backoff.*}, unless the application declares a {@link RetryPolicy} bean of this name.
	 */
	@Bean(RetryPolicies.DEFAULT_NAME)
	@ConditionalOnMissingBean(name = RetryPolicies.DEFAULT_NAME)
	RetryPolicy taskQueueRetryPolicy(TaskQueueProperties properties) {
		return QueueSettingsResolver.defaultRetryPolicy(properties);
	}

	/** Runs tasks on the caller's thread, for the {@code TaskQueueTester} of the queue-test module. */
	@Bean
	@ConditionalOnClass(name = "dev.taskqueue.testing.TaskQueueTester")
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	TaskRunner taskQueueTaskRunner(TaskQueueProperties properties, TaskHandlerRegistry registry,
			DataSource dataSource, TaskTables tables, DatabaseDialect dialect, SerializationRetry retry,
			ObjectProvider<PlatformTransactionManager> transactionManager, ObjectProvider<JsonMapper> jsonMapper,
			ObjectProvider<TaskQueueListener> listeners, ObjectProvider<TaskHandlerInterceptor> interceptors,
			TaskBuckets buckets, BeanFactory beanFactory) {
		PlatformTransactionManager manager = transactionManager
			.getIfUnique(() -> new DataSourceTransactionManager(dataSource));
		return TaskWorker.builder(registry, dataSource, tables)
			.database(dialect, retry, properties.getHistory().isEnabled())
			.transactions(manager, new TransactionTemplate(new DataSourceTransactionManager(dataSource)))
			.payloads(jsonMapper.getIfAvailable(JsonMapper::new), properties.isStrictPayload())
			.handlerCalls(new TaskQueueListeners(listeners.orderedStream().toList()),
					interceptors.orderedStream().toList())
			.queueSettings((handler) -> QueueSettingsResolver.resolve(properties, handler, manager, buckets,
					new RetryPolicies(beanFactory)))
			.maxResultBytes(properties.getResults().getMaxSize().toBytes())
			.runner();
	}

	/** The task tables' bloat figures (docs/operations.md#bloat), unless turned off. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "taskqueue.bloat.enabled", matchIfMissing = true)
	@Import(OperationsConfiguration.Bloat.class)
	static class BloatConfiguration {

		@Bean
		OperationsConfiguration.BloatSettings taskQueueBloatSettings(TaskQueueProperties properties) {
			BloatProperties bloat = properties.getBloat();
			return new OperationsConfiguration.BloatSettings(
					new BloatWatch.Thresholds(bloat.getDeadTuples(), bloat.getDeadRatio(), bloat.getHorizonAge()),
					properties.getMetrics().getRefreshInterval());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.postgresql.PGConnection")
	@ConditionalOnBooleanProperty(name = "taskqueue.notify.enabled", matchIfMissing = true)
	static class NotifyConfiguration {

		// null (no bean: every user asks getIfAvailable) on a database without LISTEN/NOTIFY; see DatabaseResolution
		@Bean
		@ConditionalOnMissingBean
		@Nullable TaskNotifications taskNotifications(TaskTables tables, DatabaseDialect dialect) {
			return dialect.listenNotify() ? new TaskNotifications(tables) : null;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "taskqueue.worker.enabled", matchIfMissing = true)
	static class WorkerConfiguration {

		private static final Log logger = LogFactory.getLog(TaskQueueAutoConfiguration.class);

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		TaskWorker taskWorker(TaskQueueProperties properties, TaskHandlerRegistry registry, QueueRepository queues,
				DataSource dataSource, ObjectProvider<PlatformTransactionManager> transactionManager,
				ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<TaskQueueListener> listeners,
				ObjectProvider<TaskHandlerInterceptor> interceptors, ObjectProvider<TaskNotifications> notifications,
				TaskTables tables, Environment environment, DatabaseDialect dialect, SerializationRetry retry,
				TaskBuckets buckets, ObjectProvider<DatabaseOutage> outage, ObjectProvider<TaskRedactor> redactor,
				BeanFactory beanFactory) {
			Integer poolSize = ConnectionBudget.poolSize(dataSource);
			TaskNotifications listening = notifications.getIfAvailable();
			if (listening != null && poolSize != null && !ConnectionBudget.hasRoomForListen(poolSize)) {
				logger.warn("The connection pool (" + poolSize + " connections) is too small to keep one for LISTEN "
						+ "besides a handler, claiming and heartbeats: this worker polls only");
				listening = null;
			}
			TransactionOperations own = ConnectionBudget.ownTransactions(dataSource);
			PlatformTransactionManager handlerTransactionManager = transactionManager
				.getIfUnique(() -> new DataSourceTransactionManager(dataSource));
			WorkerProperties worker = properties.getWorker();
			TaskWorker.Settings settings = new TaskWorker.Settings(worker.getPollInterval(),
					worker.getHeartbeatInterval(), worker.getSessionTimeout(), worker.getShutdownTimeout(),
					(poolSize != null) ? ConnectionBudget.maxHandlers(poolSize, listening != null) : Integer.MAX_VALUE,
					Threading.VIRTUAL.isActive(environment), worker.getCompletionBatchSize(),
					worker.getCompletionFlushInterval(), worker.getMaxPrefetch());
			return TaskWorker.builder(registry, dataSource, tables)
				.database(dialect, retry, properties.getHistory().isEnabled())
				.transactions(handlerTransactionManager, own)
				.settings(settings)
				.queueSettings((handler) -> QueueSettingsResolver.resolve(properties, handler,
						handlerTransactionManager, buckets, new RetryPolicies(beanFactory)))
				.session(sessionName(environment), queues)
				.payloads(jsonMapper.getIfAvailable(JsonMapper::new), properties.isStrictPayload())
				.handlerCalls(new TaskQueueListeners(listeners.orderedStream().toList()),
						interceptors.orderedStream().toList())
				.redactor(redactor.getIfAvailable(() -> TaskRedactor.NONE))
				.progress(properties.getProgress().getWriteInterval())
				.maxResultBytes(properties.getResults().getMaxSize().toBytes())
				.notifications(listening)
				.outages(outage.getIfAvailable(DatabaseOutage::new))
				.build();
		}

		private static String sessionName(Environment environment) {
			return environment.getProperty("spring.application.name", "application") + " "
					+ ManagementFactory.getRuntimeMXBean().getName();
		}

	}

}
