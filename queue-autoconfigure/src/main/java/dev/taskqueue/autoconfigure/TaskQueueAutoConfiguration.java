package dev.taskqueue.autoconfigure;

import java.lang.management.ManagementFactory;
import java.sql.SQLException;
import java.time.Duration;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.handler.TaskHandlerAnnotationBeanPostProcessor;
import dev.taskqueue.handler.TaskHandlerLazyInitializationExcludeFilter;
import dev.taskqueue.handler.TaskHandlerMethod;
import dev.taskqueue.handler.TaskHandlerRegistry;
import dev.taskqueue.jdbc.SessionRepository;
import dev.taskqueue.jdbc.TaskRepository;
import dev.taskqueue.jdbc.TaskTables;
import dev.taskqueue.producer.DefaultTaskQueue;
import dev.taskqueue.support.TaskQueueListeners;
import dev.taskqueue.worker.PayloadReader;
import dev.taskqueue.worker.QueueSettings;
import dev.taskqueue.worker.RetryPolicy;
import dev.taskqueue.worker.TaskDispatcher;
import dev.taskqueue.worker.TaskWorker;
import dev.taskqueue.worker.WorkerSession;
import dev.taskqueue.worker.WorkerSettings;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
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
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ClassUtils;

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
@Import(DatabaseInitializationDependencyConfigurer.class)
public class TaskQueueAutoConfiguration {

	@Bean
	static TaskHandlerAnnotationBeanPostProcessor taskHandlerAnnotationBeanPostProcessor() {
		return new TaskHandlerAnnotationBeanPostProcessor();
	}

	@Bean
	static LazyInitializationExcludeFilter taskHandlerLazyInitializationExcludeFilter() {
		return new TaskHandlerLazyInitializationExcludeFilter();
	}

	@Bean
	TaskHandlerRegistry taskHandlerRegistry(TaskHandlerAnnotationBeanPostProcessor taskHandlerAnnotationBeanPostProcessor) {
		return taskHandlerAnnotationBeanPostProcessor.getRegistry();
	}

	@Bean
	@ConditionalOnMissingBean
	TaskTables taskQueueTables(TaskQueueProperties properties) {
		return TaskTables.inSchema(properties.getSchema().getName());
	}

	@Bean
	@ConditionalOnBooleanProperty(name = "taskqueue.schema.migrate", matchIfMissing = true)
	@ConditionalOnMissingBean
	TaskQueueSchemaMigrator taskQueueSchemaMigrator(DataSource dataSource, TaskTables tables) {
		return new TaskQueueSchemaMigrator(dataSource, tables);
	}

	@Bean
	@ConditionalOnMissingBean
	TaskRepository taskRepository(DataSource dataSource, TaskTables tables) {
		return new TaskRepository(dataSource, tables);
	}

	@Bean
	@ConditionalOnMissingBean
	SessionRepository taskQueueSessionRepository(DataSource dataSource, TaskTables tables) {
		return new SessionRepository(dataSource, tables);
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	TaskQueue taskQueue(TaskRepository taskRepository, ObjectProvider<JsonMapper> jsonMapper,
			ObjectProvider<TaskQueueListener> listeners) {
		return new DefaultTaskQueue(taskRepository, jsonMapper.getIfAvailable(JsonMapper::new),
				new TaskQueueListeners(listeners.orderedStream().toList()));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "taskqueue.worker.enabled", matchIfMissing = true)
	static class WorkerConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@DependsOnDatabaseInitialization
		TaskWorker taskWorker(TaskQueueProperties properties, TaskHandlerRegistry registry, TaskRepository tasks,
				SessionRepository sessions, DataSource dataSource,
				ObjectProvider<PlatformTransactionManager> transactionManager, ObjectProvider<JsonMapper> jsonMapper,
				ObjectProvider<TaskQueueListener> listeners, ObjectProvider<TaskHandlerInterceptor> interceptors,
				Environment environment) {
			TransactionTemplate ownTransactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
			TransactionTemplate handlerTransactions = new TransactionTemplate(
					transactionManager.getIfUnique(() -> new DataSourceTransactionManager(dataSource)));
			TaskQueueProperties.Worker worker = properties.getWorker();
			WorkerSettings settings = new WorkerSettings(worker.getPollInterval(), worker.getHeartbeatInterval(),
					worker.getSessionTimeout(), worker.getShutdownTimeout(), maxHandlers(dataSource));
			WorkerSession session = new WorkerSession(sessions, ownTransactions, sessionName(environment),
					worker.getSessionTimeout());
			TaskDispatcher dispatcher = new TaskDispatcher(tasks,
					new PayloadReader(jsonMapper.getIfAvailable(JsonMapper::new)), handlerTransactions,
					ownTransactions, new TaskQueueListeners(listeners.orderedStream().toList()),
					interceptors.orderedStream().toList());
			return new TaskWorker(registry, tasks, session, dispatcher, ownTransactions, settings,
					(handler) -> queueSettings(properties, handler));
		}

		/** Room for handlers in the pool: one connection each, two kept for claiming and heartbeats. */
		private static int maxHandlers(DataSource dataSource) {
			if (ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", null)) {
				Integer poolSize = HikariPool.maximumPoolSize(dataSource);
				if (poolSize != null) {
					return Math.max(1, poolSize - 2);
				}
			}
			return Integer.MAX_VALUE;
		}

		private static String sessionName(Environment environment) {
			return environment.getProperty("spring.application.name", "application") + " "
					+ ManagementFactory.getRuntimeMXBean().getName();
		}

		/** Reads the pool size of a Hikari pool; kept apart so Hikari stays optional. */
		private static final class HikariPool {

			static Integer maximumPoolSize(DataSource dataSource) {
				try {
					return dataSource.isWrapperFor(HikariDataSource.class)
							? dataSource.unwrap(HikariDataSource.class).getMaximumPoolSize() : null;
				}
				catch (SQLException ex) {
					return null;
				}
			}

		}

		/** The queue's properties win over the annotation, which wins over the defaults. */
		private static QueueSettings queueSettings(TaskQueueProperties properties, TaskHandlerMethod handler) {
			TaskQueueProperties.Queue queue = properties.getQueues().get(handler.queue());
			int concurrency = (queue != null && queue.getConcurrency() != null) ? queue.getConcurrency()
					: (handler.concurrency() > 0) ? handler.concurrency() : properties.getWorker().getConcurrency();
			int maxAttempts = (queue != null && queue.getMaxAttempts() != null) ? queue.getMaxAttempts()
					: (handler.maxAttempts() > 0) ? handler.maxAttempts() : properties.getRetry().getMaxAttempts();
			TaskQueueProperties.Backoff backoff = properties.getRetry().getBackoff();
			RetryPolicy retryPolicy = new RetryPolicy(backoff.getInitialDelay(), backoff.getMultiplier(),
					backoff.getMaxDelay(), backoff.getJitter());
			Duration timeout = (queue != null && queue.getTimeout() != null) ? queue.getTimeout()
					: properties.getWorker().getTimeout();
			return new QueueSettings(concurrency, maxAttempts, retryPolicy, timeout);
		}

	}

}
