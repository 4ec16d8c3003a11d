package dev.taskqueue.actuate;

import java.time.Duration;
import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code taskqueue} endpoint exposed with nothing else set is read-only: a write (a body-less cross-site POST
 * would do) is not mapped, so Spring MVC answers 405 and nothing changes. Writes need
 * {@code management.endpoint.taskqueue.access=unrestricted}, which {@link TaskQueueEndpointWebIntegrationTests} sets.
 * It shows no payload or result either, as Spring Boot's {@code env} endpoint shows no value, until
 * {@code management.endpoint.taskqueue.show-values} says to whom.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "management.endpoints.web.exposure.include=taskqueue")
class TaskQueueEndpointAccessIntegrationTests {

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
	private TaskQueueOperations operations;

	@Autowired
	private JdbcTemplate jdbc;

	private RestTestClient http;

	@BeforeEach
	void connect() {
		this.http = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/actuator").build();
	}

	@Test
	void writesAreRefusedByDefaultAndChangeNothing() {
		UUID waiting = this.taskQueue.enqueue(TaskRequest.of("access-queue", "x").withDelay(Duration.ofHours(1)));
		this.http.get().uri("/taskqueue/access-queue").exchange().expectStatus().isOk();
		for (String action : new String[] { "pause", "resume", "retry-dead" }) {
			refused(this.http.post().uri("/taskqueue/access-queue/" + action));
		}
		// The three-segment paths are a read's too (tasks/{id}/progress and /result): the writes there are refused.
		refused(this.http.post().uri("/taskqueue/tasks/" + waiting + "/retry"));
		refused(this.http.post().uri("/taskqueue/schedules/anything/pause"));
		refused(this.http.delete().uri("/taskqueue/access-queue/waiting?all=true"));
		refused(this.http.delete().uri("/taskqueue/access-queue/dead?all=true"));
		refused(this.http.delete().uri("/taskqueue/tasks/" + waiting));
		refused(this.http.post()
			.uri("/taskqueue/access-queue")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\": \"retry-waiting\"}"));
		assertThat(this.operations.isPaused("access-queue")).isFalse();
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class,
				waiting)).isEqualTo(1);
	}

	@Test
	void payloadsAndResultsAreHiddenByDefaultAndErrorsShown() {
		UUID dead = UUID.randomUUID();
		UUID completed = UUID.randomUUID();
		this.jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, "
				+ "error) VALUES (?, 'access-dead', '{\"card\": \"4111 1111 1111 1111\"}', 0, 1, now(), "
				+ "'java.lang.IllegalStateException: declined')", dead);
		this.jdbc.update("INSERT INTO taskqueue_result (id, queue, result) VALUES (?, 'access-dead', "
				+ "'{\"token\": \"s3cr3t\"}')", completed);
		this.http.get()
			.uri("/taskqueue/tasks/" + dead)
			.exchange()
			.expectBody()
			.jsonPath("$.payload")
			.isEqualTo("(hidden)")
			.jsonPath("$.error")
			.isEqualTo("java.lang.IllegalStateException: declined");
		this.http.get()
			.uri("/taskqueue/access-dead/dead")
			.exchange()
			.expectBody()
			.jsonPath("$.tasks[0].payload")
			.isEqualTo("(hidden)");
		this.http.get()
			.uri("/taskqueue/tasks/" + completed + "/result")
			.exchange()
			.expectBody()
			.jsonPath("$.result")
			.isEqualTo("(hidden)");
	}

	/** Spring MVC maps only the read operations of a read-only endpoint: another method on their paths is a 405. */
	private static void refused(RestTestClient.RequestHeadersSpec<?> request) {
		request.exchange().expectStatus().isEqualTo(HttpStatus.METHOD_NOT_ALLOWED);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
