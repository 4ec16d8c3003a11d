package dev.taskqueue.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every operation of the {@code taskqueue} endpoint, the health indicator and the Prometheus names, over HTTP, in an
 * application with the actuator and Spring MVC, on a real PostgreSQL.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=health,taskqueue,prometheus",
				"management.endpoint.health.show-details=always", "taskqueue.worker.poll-interval=50ms",
				"taskqueue.worker.heartbeat-interval=100ms", "taskqueue.queues.web-dead.max-attempts=1",
				"taskqueue.metrics.refresh-interval=100ms" })
class TaskQueueEndpointWebIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

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
	private Handlers handlers;

	@Autowired
	private JdbcTemplate jdbc;

	private RestTestClient http;

	@BeforeEach
	void connect() {
		this.http = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/actuator").build();
	}

	@Test
	void readShowsQueuesAndSessions() {
		this.taskQueue.enqueue(TaskRequest.of("web-unhandled", "x").withDelay(Duration.ofHours(1)));
		this.http.get().uri("/taskqueue").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.queues[?(@.queue == 'web-unhandled')].scheduled").isEqualTo(List.of(1))
			.jsonPath("$.queues[?(@.queue == 'web-work')].ready").isEqualTo(List.of(0))
			.jsonPath("$.queues[?(@.queue == 'web-work')].paused").isEqualTo(List.of(false))
			.jsonPath("$.sessions.length()").isEqualTo(1)
			.jsonPath("$.sessions[0].runningTasks").isEqualTo(0);
		this.http.get().uri("/taskqueue/web-unhandled").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.queue").isEqualTo("web-unhandled")
			.jsonPath("$.scheduled").isEqualTo(1);
		this.http.get().uri("/taskqueue/nobody-knows-me").exchange().expectStatus().isNotFound();
	}

	@Test
	void pauseAndResumeAQueue() {
		post("/taskqueue/web-work/pause").jsonPath("$.paused").isEqualTo(true).jsonPath("$.action").isEqualTo("pause");
		sleep(Duration.ofMillis(500)); // a few heartbeats
		UUID id = this.taskQueue.enqueue("web-work", "while paused");
		sleep(Duration.ofMillis(500));
		assertThat(this.handlers.handled).doesNotContain(id);
		this.http.get().uri("/taskqueue/web-work").exchange().expectBody()
			.jsonPath("$.paused").isEqualTo(true)
			.jsonPath("$.ready").isEqualTo(1);
		post("/taskqueue/web-work/resume").jsonPath("$.paused").isEqualTo(false);
		Await.until("the task runs after resume", WAIT, () -> this.handlers.handled.contains(id));
	}

	@Test
	void retryAndDeleteDeadTasks() {
		List<UUID> ids = this.taskQueue.enqueueAll(List.of(TaskRequest.of("web-dead", "1"),
				TaskRequest.of("web-dead", "2"), TaskRequest.of("web-dead", "3"), TaskRequest.of("web-dead", "4")));
		Await.until("four dead tasks", WAIT, () -> dead() == 4);
		this.handlers.failing.set(false);
		post("/taskqueue/tasks/" + ids.get(0) + "/retry").jsonPath("$.result").isEqualTo("retried");
		post("/taskqueue/tasks/" + ids.get(0) + "/retry").jsonPath("$.result").isEqualTo("not-dead");
		Await.until("the retried task is handled", WAIT, () -> this.handlers.handled.contains(ids.get(0)));
		delete("/taskqueue/tasks/" + ids.get(1)).jsonPath("$.result").isEqualTo("deleted");
		post("/taskqueue/web-dead/retry-dead").jsonPath("$.tasks").isEqualTo(2);
		Await.until("the others are handled", WAIT,
				() -> this.handlers.handled.containsAll(List.of(ids.get(2), ids.get(3))));
		assertThat(this.handlers.handled).doesNotContain(ids.get(1));

		this.handlers.failing.set(true);
		this.taskQueue.enqueueAll(List.of(TaskRequest.of("web-dead", "5"), TaskRequest.of("web-dead", "6")));
		Await.until("two dead tasks", WAIT, () -> dead() == 2);
		delete("/taskqueue/web-dead/dead").jsonPath("$.tasks")
			.isEqualTo(2)
			.jsonPath("$.action")
			.isEqualTo("delete-dead");
		assertThat(dead()).isZero();
	}

	@Test
	void cancelAWaitingTask() {
		UUID later = this.taskQueue.enqueue(TaskRequest.of("web-work", "later").withDelay(Duration.ofHours(1)));
		delete("/taskqueue/tasks/" + later).jsonPath("$.result").isEqualTo("cancelled").jsonPath("$.id")
			.isEqualTo(later.toString());
		delete("/taskqueue/tasks/" + later).jsonPath("$.result").isEqualTo("not-waiting-or-dead");
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class, later))
			.isZero();
	}

	@Test
	void badRequestsAreRejected() {
		this.http.post().uri("/taskqueue/web-work/explode").exchange().expectStatus().isBadRequest();
		this.http.post().uri("/taskqueue/not%20a%20queue/pause").exchange().expectStatus().isBadRequest();
		this.http.post().uri("/taskqueue/tasks/not-an-id/retry").exchange().expectStatus().isBadRequest();
		this.http.post().uri("/taskqueue/web-work/" + UUID.randomUUID() + "/retry").exchange().expectStatus()
			.isBadRequest();
		this.http.delete().uri("/taskqueue/web-work/everything").exchange().expectStatus().isBadRequest();
	}

	@Test
	void healthShowsTheTaskQueueIndicator() {
		this.http.get().uri("/health").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.components.taskqueue.status").isEqualTo("UP")
			.jsonPath("$.components.taskqueue.details.worker").isEqualTo("running")
			.jsonPath("$.components.taskqueue.details.liveSessions").isEqualTo(1);
	}

	@Test
	void prometheusShowsTheMeters() {
		UUID id = this.taskQueue.enqueue("web-work", "counted");
		Await.until("the task is handled", WAIT, () -> this.handlers.handled.contains(id));
		Await.until("the gauges are registered", WAIT, () -> prometheus().contains("taskqueue_queue_ready{"));
		assertThat(prometheus()).contains("taskqueue_tasks_enqueued_total{queue=\"web-work\"}",
				"taskqueue_tasks_processed_total{outcome=\"completed\",queue=\"web-work\"}",
				"taskqueue_tasks_duration_seconds_count{outcome=\"completed\",queue=\"web-work\"}",
				"taskqueue_tasks_pickup_latency_seconds_count{queue=\"web-work\"}",
				"taskqueue_queue_ready{queue=\"web-work\"}", "taskqueue_queue_scheduled{queue=\"web-work\"}",
				"taskqueue_queue_running{queue=\"web-work\"}", "taskqueue_queue_dead{queue=\"web-work\"}",
				"taskqueue_queue_oldest_ready_age_seconds{queue=\"web-work\"}",
				"taskqueue_enqueue_seconds_count{error=\"none\",queue=\"web-work\"}",
				"taskqueue_handle_seconds_count{error=\"none\",queue=\"web-work\"}");
	}

	private String prometheus() {
		return this.http.get().uri("/prometheus").exchange().expectBody(String.class).returnResult().getResponseBody();
	}

	private RestTestClient.BodyContentSpec post(String uri) {
		return this.http.post().uri(uri).exchange().expectStatus().isOk().expectBody();
	}

	private RestTestClient.BodyContentSpec delete(String uri) {
		return this.http.delete().uri(uri).exchange().expectStatus().isOk().expectBody();
	}

	private int dead() {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = 'web-dead'",
				Integer.class);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	static class Handlers {

		final Set<UUID> handled = ConcurrentHashMap.newKeySet();

		final AtomicBoolean failing = new AtomicBoolean(true);

		@TaskHandler(queue = "web-work")
		void work(String payload, TaskContext context) {
			this.handled.add(context.id());
		}

		@TaskHandler(queue = "web-dead")
		void dead(String payload, TaskContext context) {
			if (this.failing.get()) {
				throw new IllegalStateException("failing on purpose");
			}
			this.handled.add(context.id());
		}

	}

}
