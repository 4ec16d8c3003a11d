package dev.taskqueue.dialect;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.autoconfigure.TaskQueueMetricsAutoConfiguration;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances share 2,000 tasks on the restricted PostgreSQL profile ({@link RestrictedPostgres}), where every
 * transaction is SERIALIZABLE: concurrent claims really fail with SQLSTATE 40001 ("could not serialize access due
 * to concurrent update" on a row another claim took after the statement's snapshot), and are retried. In each
 * completion mode, every task is handled exactly once: one business row per task, none lost, none doubled, no dead
 * letters; and {@code taskqueue.serialization.retries} counted the retries.
 */
class SerializableExactlyOnceIntegrationTests {

	private static final Log logger = LogFactory.getLog(SerializableExactlyOnceIntegrationTests.class);

	private static final int TASKS = 2_000;

	private final RestrictedPostgres database = new RestrictedPostgres();

	@AfterEach
	void dropRole() {
		this.database.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "transactional", "group-commit", "batched" })
	void threeInstancesHandleEveryTaskExactlyOnceUnderSerializable(String mode) {
		JdbcTemplate jdbc = this.database.superuser();
		jdbc.execute("CREATE TABLE business (task_id uuid NOT NULL, instance text NOT NULL)");
		jdbc.execute("GRANT ALL ON business TO PUBLIC");
		String queue = mode.equals("batched") ? "batched" : "business";
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				instances.add(TestApplications.start(this.database.url(),
						List.of(RestrictedPostgres.CockroachDialect.class, Config.class),
						"taskqueue.schema.migrate=false", "taskqueue.worker.concurrency=6",
						"spring.datasource.hikari.maximum-pool-size=10",
						// Every instance must take part: none holds more than it runs, and none backs off for long
						// after its claims collided, while two others drain the 2,000 tasks in a second or two.
						"taskqueue.worker.max-prefetch=0", "taskqueue.serialization-retry.max-delay=20ms",
						"taskqueue.worker.group-commit-size=" + (mode.equals("group-commit") ? 8 : 1)));
			}
			TaskQueue taskQueue = instances.get(0).getBean(TaskQueue.class);
			for (int batch = 0; batch < TASKS / 200; batch++) {
				List<TaskRequest> requests = new ArrayList<>();
				for (int i = 0; i < 200; i++) {
					requests.add(TaskRequest.of(queue, Map.of("n", batch * 200 + i)));
				}
				taskQueue.enqueueAll(requests);
			}
			Await.until("all tasks are done", Duration.ofSeconds(120),
					() -> this.database.count("SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(this.database.count("SELECT count(*) FROM business")).isEqualTo(TASKS);
			assertThat(this.database.count("SELECT count(DISTINCT task_id) FROM business")).isEqualTo(TASKS);
			assertThat(this.database.count("SELECT count(*) FROM taskqueue_dead_task")).isZero();
			List<Long> byInstance = jdbc.queryForList("SELECT count(*) FROM business GROUP BY instance", Long.class);
			logger.info("Tasks handled in " + mode + " mode, by instance: " + byInstance);
			assertThat(byInstance).as("every instance took part").hasSize(3);
			Map<String, Double> retries = new TreeMap<>();
			instances.forEach((instance) -> instance.getBean(MeterRegistry.class)
				.find("taskqueue.serialization.retries")
				.counters()
				.forEach((counter) -> retries.merge(counter.getId().getTag("operation"), counter.count(),
						Double::sum)));
			logger.info("Serialization retries in " + mode + " mode, by operation: " + retries);
			assertThat(retries.values().stream().mapToDouble(Double::doubleValue).sum())
				.as("serialization failures were retried").isPositive();
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(TaskQueueMetricsAutoConfiguration.class)
	static class Config {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		BusinessHandler businessHandler(JdbcTemplate jdbc) {
			return new BusinessHandler(jdbc);
		}

	}

	static class BusinessHandler {

		private final JdbcTemplate jdbc;

		private final String instance = UUID.randomUUID().toString();

		BusinessHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "business")
		void handle(Map<String, Integer> payload, TaskContext context) {
			this.jdbc.update("INSERT INTO business (task_id, instance) VALUES (?, ?)", context.id(), this.instance);
		}

		@TaskHandler(queue = "batched", completion = TaskHandler.Completion.BATCHED)
		void handleBatched(Map<String, Integer> payload, TaskContext context) {
			this.jdbc.update("INSERT INTO business (task_id, instance) VALUES (?, ?)", context.id(), this.instance);
		}

	}

}
