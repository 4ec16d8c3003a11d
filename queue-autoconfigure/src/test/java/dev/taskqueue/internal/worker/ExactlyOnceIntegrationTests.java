package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three application instances on one database share 5,000 tasks; each handler writes a business row in its
 * transaction. Exactly-once acknowledgement means exactly 5,000 rows, one per task, and nothing left over.
 */
class ExactlyOnceIntegrationTests {

	private static final int TASKS = 5_000;

	@Test
	void threeInstancesHandleEveryTaskExactlyOnce() {
		String url = TestDatabase.createDatabase();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				instances.add(TestApplications.start(url, List.of(Config.class), "taskqueue.worker.concurrency=6",
						"spring.datasource.hikari.maximum-pool-size=10"));
			}
			JdbcTemplate jdbc = instances.get(0).getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE business (task_id uuid NOT NULL, instance text NOT NULL)");
			TaskQueue taskQueue = instances.get(0).getBean(TaskQueue.class);
			for (int batch = 0; batch < TASKS / 500; batch++) {
				List<TaskRequest> requests = new ArrayList<>();
				for (int i = 0; i < 500; i++) {
					requests.add(TaskRequest.of("business", Map.of("n", batch * 500 + i)));
				}
				taskQueue.enqueueAll(requests);
			}
			Await.until("all tasks are done", Duration.ofSeconds(120),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM business", Integer.class)).isEqualTo(TASKS);
			assertThat(jdbc.queryForObject("SELECT count(DISTINCT task_id) FROM business", Integer.class))
				.isEqualTo(TASKS);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
			assertThat(jdbc.queryForList("SELECT DISTINCT instance FROM business", String.class))
				.as("every instance took part").hasSize(3);
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		BusinessHandler businessHandler(JdbcTemplate jdbc) {
			return new BusinessHandler(jdbc);
		}

	}

	static class BusinessHandler {

		private final JdbcTemplate jdbc;

		private final String instance = java.util.UUID.randomUUID().toString();

		BusinessHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "business")
		void handle(Map<String, Integer> payload, TaskContext context) {
			this.jdbc.update("INSERT INTO business (task_id, instance) VALUES (?, ?)", context.id(), this.instance);
		}

	}

}
