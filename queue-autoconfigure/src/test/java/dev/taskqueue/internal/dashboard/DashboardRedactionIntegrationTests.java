package dev.taskqueue.internal.dashboard;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's {@link TaskRedactor} masks a secret in every payload and error the dashboard and the
 * {@code taskqueue} actuator endpoint show: the queue's list, the dead letters, the page of a task, the endpoint's
 * dead tasks, and the worker's log line of the failure.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(classes = { DashboardTestApplication.class, DashboardRedactionIntegrationTests.Masking.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true", "management.endpoints.web.exposure.include=taskqueue",
				"taskqueue.worker.poll-interval=50ms" })
class DashboardRedactionIntegrationTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private TaskQueue taskQueue;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void everyPayloadAndErrorShownGoesThroughTheRedactor(CapturedOutput output) throws Exception {
		UUID waiting = this.taskQueue.enqueue(TaskRequest.of("dash-redact", "card S3CRET-1").withDelay(Duration.ofHours(1)));
		this.jdbc.update("UPDATE taskqueue_task SET last_error = 'failed for card S3CRET-1' WHERE id = ?", waiting);
		// dash-dead refuses it with an error that holds the payload.
		UUID dead = this.taskQueue.enqueue(TaskRequest.of("dash-dead", "card S3CRET-2"));
		Await.until("the task is dead", Duration.ofSeconds(20), () -> this.jdbc
			.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class, dead) == 1);

		for (String path : List.of("/taskqueue/queues/dash-redact?view=scheduled", "/taskqueue/tasks/" + waiting,
				"/taskqueue/dead?queue=dash-dead", "/taskqueue/tasks/" + dead, "/actuator/taskqueue/dash-dead/dead",
				"/actuator/taskqueue/tasks/" + dead)) {
			HttpResponse<String> response = get(path);
			assertThat(response.statusCode()).as(path).isEqualTo(200);
			assertThat(response.body()).as(path).doesNotContain("S3CRET").contains("card ***");
		}
		assertThat(get("/taskqueue/tasks/" + waiting).body()).contains("failed for card ***");
		assertThat(get("/actuator/taskqueue/tasks/" + dead).body()).contains("refused card ***");
		// The worker's log line of the failure too.
		assertThat(output).doesNotContain("S3CRET").contains("refused card ***");
	}

	private HttpResponse<String> get(String path) throws Exception {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build(),
					HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	static class Masking {

		@Bean
		TaskRedactor maskingRedactor() {
			return new TaskRedactor() {

				@Override
				public String payload(String queue, String json) {
					return json.replaceAll("S3CRET-[0-9]", "***");
				}

				@Override
				public String error(String queue, String error) {
					return error.replaceAll("S3CRET-[0-9]", "***");
				}

			};
		}

	}

}
