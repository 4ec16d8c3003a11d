package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.BatchResult;
import dev.taskqueue.EnqueueResult;
import dev.taskqueue.PublishResult;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.worker.TaskWorker;
import dev.taskqueue.test.PropertyFailures;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

class TaskQueueAutoConfigurationIntegrationTests {

	private static final String url = TestDatabase.createDatabase();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
				JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + url);

	@Test
	void backsOffWithoutDataSource() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(TransactionAutoConfiguration.class,
					JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(TaskQueue.class)
				.doesNotHaveBean(TaskWorker.class)
				.doesNotHaveBean(TaskQueueProperties.class)
				.doesNotHaveBean("taskHandlerAnnotationBeanPostProcessor"));
	}

	@Test
	void configuresQueueWorkerAndMigrator() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(TaskQueue.class)
				.hasSingleBean(TaskWorker.class)
				.hasSingleBean(TaskQueueSchemaMigrator.class)
				.hasSingleBean(TaskHandlerRegistry.class)
				.hasSingleBean(EnqueueRepository.class);
			assertThat(context.getBean(TaskHandlerRegistry.class))
				.isSameAs(TaskHandlerRegistry.of(context.getBeanFactory()));
		});
	}

	@Test
	void disabledConfiguresNothing() {
		this.runner.withPropertyValues("taskqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(TaskQueue.class)
				.doesNotHaveBean(TaskWorker.class)
				.doesNotHaveBean(TaskQueueSchemaMigrator.class)
				.doesNotHaveBean("taskHandlerAnnotationBeanPostProcessor"));
	}

	@Test
	void workerDisabledLeavesAProducerOnly() {
		this.runner.withPropertyValues("taskqueue.worker.enabled=false").run((context) -> {
			assertThat(context).hasSingleBean(TaskQueue.class).doesNotHaveBean(TaskWorker.class);
			UUID id = context.getBean(TaskQueue.class).enqueue("emails", "hello");
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			assertThat(jdbc.queryForObject("SELECT payload::text FROM taskqueue_task WHERE id = ?", String.class, id))
				.isEqualTo("\"hello\"");
		});
	}

	@Test
	void userDefinedTaskQueueWins() {
		TaskQueue own = new TaskQueue() {

			@Override
			public UUID enqueue(TaskRequest request) {
				return new UUID(0, 1);
			}

			@Override
			public EnqueueResult offer(TaskRequest request) {
				return new EnqueueResult(new UUID(0, 1), false);
			}

			@Override
			public List<UUID> enqueueAll(List<TaskRequest> requests) {
				return List.of();
			}

			@Override
			public List<EnqueueResult> offerAll(List<TaskRequest> requests) {
				return List.of();
			}

			@Override
			public PublishResult publish(String topic, Object payload) {
				return new PublishResult(topic, Map.of());
			}

			@Override
			public BatchResult enqueueBatch(List<TaskRequest> tasks, TaskRequest then) {
				return new BatchResult(new UUID(0, 2), List.of(), new UUID(0, 3));
			}

		};
		this.runner.withBean("ownTaskQueue", TaskQueue.class, () -> own).run((context) -> {
			assertThat(context).hasSingleBean(TaskQueue.class).hasBean("ownTaskQueue").doesNotHaveBean("taskQueue");
			assertThat(context.getBean(TaskQueue.class)).isSameAs(own);
			assertThat(context).hasSingleBean(TaskWorker.class);
		});
	}

	@Test
	void migrateFalseLeavesTheDatabaseAlone() {
		String fresh = TestDatabase.createDatabase();
		this.runner.withPropertyValues("spring.datasource.url=" + fresh, "taskqueue.schema.migrate=false")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(TaskQueueSchemaMigrator.class)
					.hasSingleBean(TaskQueue.class);
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				assertThat(jdbc.queryForObject("SELECT count(*) FROM information_schema.tables "
						+ "WHERE table_name LIKE 'taskqueue%'", Integer.class)).isZero();
			});
	}

	@Test
	void taskQueueWaitsForTheMigrationWithoutOtherDatabaseInitializers() {
		this.runner.withPropertyValues("spring.datasource.url=" + TestDatabase.createDatabase())
			.withBean(EnqueuesOnStartup.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				UUID id = context.getBean(EnqueuesOnStartup.class).id;
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				assertThat(jdbc.queryForObject("SELECT queue FROM taskqueue_task WHERE id = ?", String.class, id))
					.isEqualTo("startup");
			});
	}

	@Test
	void propertiesBind() {
		this.runner
			.withPropertyValues("taskqueue.worker.poll-interval=250ms", "taskqueue.worker.concurrency=7",
					"taskqueue.worker.heartbeat-interval=2s", "taskqueue.worker.session-timeout=1m",
					"taskqueue.worker.shutdown-timeout=0s", "taskqueue.retry.max-attempts=9",
					"taskqueue.retry.backoff.initial-delay=100ms", "taskqueue.retry.backoff.multiplier=3.5",
					"taskqueue.retry.backoff.max-delay=2h", "taskqueue.retry.backoff.jitter=0",
					"taskqueue.queues.emails.concurrency=2", "taskqueue.queues[billing.v2].max-attempts=1",
					"taskqueue.schema.name=jobs", "taskqueue.schema.migrate=false")
			.run((context) -> {
				TaskQueueProperties properties = context.getBean(TaskQueueProperties.class);
				WorkerProperties worker = properties.getWorker();
				assertThat(worker.getPollInterval()).isEqualTo(Duration.ofMillis(250));
				assertThat(worker.getConcurrency()).isEqualTo(7);
				assertThat(worker.getHeartbeatInterval()).isEqualTo(Duration.ofSeconds(2));
				assertThat(worker.getSessionTimeout()).isEqualTo(Duration.ofMinutes(1));
				assertThat(worker.getShutdownTimeout()).isEqualTo(Duration.ZERO);
				assertThat(properties.getRetry().getMaxAttempts()).isEqualTo(9);
				RetryProperties.Backoff backoff = properties.getRetry().getBackoff();
				assertThat(backoff.getInitialDelay()).isEqualTo(Duration.ofMillis(100));
				assertThat(backoff.getMultiplier()).isEqualTo(3.5);
				assertThat(backoff.getMaxDelay()).isEqualTo(Duration.ofHours(2));
				assertThat(backoff.getJitter()).isZero();
				assertThat(properties.getQueues()).containsOnlyKeys("emails", "billing.v2");
				assertThat(properties.getQueues().get("emails").getConcurrency()).isEqualTo(2);
				assertThat(properties.getQueues().get("emails").getMaxAttempts()).isNull();
				assertThat(properties.getQueues().get("billing.v2").getMaxAttempts()).isEqualTo(1);
				assertThat(properties.getSchema().getName()).isEqualTo("jobs");
				assertThat(properties.getSchema().isMigrate()).isFalse();
			});
	}

	@Test
	void defaultsAreTheDocumentedOnes() {
		this.runner.run((context) -> {
			TaskQueueProperties properties = context.getBean(TaskQueueProperties.class);
			assertThat(properties.getWorker().getPollInterval()).isEqualTo(Duration.ofMillis(500));
			assertThat(properties.getWorker().getConcurrency()).isEqualTo(4);
			assertThat(properties.getWorker().getSessionTimeout()).isEqualTo(Duration.ofSeconds(30));
			assertThat(properties.getRetry().getMaxAttempts()).isEqualTo(20);
			assertThat(properties.getRetry().getBackoff().getMaxDelay()).isEqualTo(Duration.ofHours(1));
			assertThat(properties.getRetry().getBackoff().getJitter()).isEqualTo(0.2);
			assertThat(properties.getMaxPayloadSize()).isEqualTo(DataSize.ofMegabytes(1));
			assertThat(properties.isStrictPayload()).isFalse();
			assertThat(properties.getSchema().getName()).isNull();
			assertThat(properties.getQueues()).isEmpty();
		});
	}

	@Test
	void zeroPollIntervalFails() {
		assertStartupFails("taskqueue.worker.poll-interval=0s",
				"taskqueue.worker.poll-interval: must be a positive duration");
	}

	@Test
	void negativeSessionTimeoutFails() {
		assertStartupFails("taskqueue.worker.session-timeout=-5s",
				"taskqueue.worker.session-timeout: must be a positive duration");
	}

	@Test
	void negativeShutdownTimeoutFails() {
		assertStartupFails("taskqueue.worker.shutdown-timeout=-1ms",
				"taskqueue.worker.shutdown-timeout: must not be negative");
	}

	@Test
	void zeroConcurrencyFails() {
		assertStartupFails("taskqueue.worker.concurrency=0",
				"taskqueue.worker.concurrency: must be at least 1");
	}

	@Test
	void jitterAboveOneFails() {
		assertStartupFails("taskqueue.retry.backoff.jitter=1.5",
				"taskqueue.retry.backoff.jitter: must be from 0 to 1");
	}

	@Test
	void multiplierBelowOneFails() {
		assertStartupFails("taskqueue.retry.backoff.multiplier=0.5",
				"taskqueue.retry.backoff.multiplier: must be at least 1");
	}

	@Test
	void schemaNameThatIsNotAnIdentifierFails() {
		assertStartupFails("taskqueue.schema.name=x; drop table y",
				"taskqueue.schema.name: must be a plain SQL identifier (a letter or '_', then letters, digits or "
						+ "'_', at most 63)");
	}

	@Test
	void invalidQueueKeyFails() {
		assertStartupFails("taskqueue.queues[bad name!].concurrency=1",
				"taskqueue.queues key must be 1 to 100 letters, digits, '.', '_', '-' or ':' but was 'bad name!'");
	}

	@Test
	void zeroQueueConcurrencyFailsNamingTheQueue() {
		assertStartupFails("taskqueue.queues.emails.concurrency=0",
				"taskqueue.queues.emails.concurrency: must be at least 1");
	}

	@Test
	void zeroQueueMaxAttemptsFailsNamingTheQueueInBrackets() {
		assertStartupFails("taskqueue.queues[billing.v2].max-attempts=0",
				"taskqueue.queues[billing.v2].max-attempts: must be at least 1");
	}

	@Test
	void heartbeatIntervalNotShorterThanSessionTimeoutFails() {
		this.runner
			.withPropertyValues("taskqueue.worker.heartbeat-interval=30s", "taskqueue.worker.session-timeout=30s")
			.run((context) -> assertStartupFailure(context, "taskqueue.worker.heartbeat-interval: must be shorter "
					+ "than taskqueue.worker.session-timeout (PT30S)"));
	}

	@Test
	void everyRefusedPropertyIsReportedAtOnce() {
		this.runner.withPropertyValues("taskqueue.worker.concurrency=0", "taskqueue.retry.max-attempts=0")
			.run((context) -> assertThat(PropertyFailures.refusals(context.getStartupFailure())).containsExactly(
					"taskqueue.worker.concurrency: must be at least 1", "taskqueue.retry.max-attempts: must be at least 1"));
	}

	static class EnqueuesOnStartup {

		final UUID id;

		EnqueuesOnStartup(TaskQueue taskQueue) {
			this.id = taskQueue.enqueue("startup", "payload");
		}

	}

	private void assertStartupFails(String property, String message) {
		this.runner.withPropertyValues(property).run((context) -> assertStartupFailure(context, message));
	}

	/** {@code refusal} is {@code property: reason}, or the message of an error that names no single property. */
	private static void assertStartupFailure(AssertableApplicationContext context, String refusal) {
		assertThat(context).hasFailed();
		assertThat(PropertyFailures.refusals(context.getStartupFailure())).contains(refusal);
	}

}
