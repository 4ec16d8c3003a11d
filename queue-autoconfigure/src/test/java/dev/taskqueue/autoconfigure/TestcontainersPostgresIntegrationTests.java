package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same starter on a stock PostgreSQL image; skipped where there is no Docker engine.
 */
@Testcontainers(disabledWithoutDocker = true)
class TestcontainersPostgresIntegrationTests {

	@Container
	static PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:17-alpine");

	@Test
	void enqueuedTaskIsHandled() {
		try (ConfigurableApplicationContext context = TestApplications.start(postgres.getJdbcUrl(),
				List.of(Handler.class), "spring.datasource.username=" + postgres.getUsername(),
				"spring.datasource.password=" + postgres.getPassword())) {
			UUID id = context.getBean(TaskQueue.class).enqueue("containers", "hello");
			Handler handler = context.getBean(Handler.class);
			Await.until("the task is handled", Duration.ofSeconds(30), () -> handler.handled.containsKey(id));
			assertThat(handler.handled).containsExactly(Map.entry(id, "hello"));
		}
	}

	static class Handler {

		final Map<UUID, String> handled = new ConcurrentHashMap<>();

		@TaskHandler(queue = "containers")
		void handle(String payload, TaskContext context) {
			this.handled.put(context.id(), payload);
		}

	}

}
