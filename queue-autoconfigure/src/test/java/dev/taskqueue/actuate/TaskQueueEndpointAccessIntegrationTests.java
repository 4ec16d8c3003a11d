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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code taskqueue} endpoint exposed with nothing else set is read-only: a write (a body-less cross-site POST
 * would do) is not mapped, so Spring MVC answers 405 and nothing changes. Writes need
 * {@code management.endpoint.taskqueue.access=unrestricted}, which {@link TaskQueueEndpointWebIntegrationTests} sets.
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
		assertThat(this.operations.isPaused("access-queue")).isFalse();
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class,
				waiting)).isEqualTo(1);
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
