package dev.taskqueue.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.taskqueue.NonRetryableTaskException;
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
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every operation of the {@code taskqueue} endpoint, the health indicator and the Prometheus names, over HTTP, in an
 * application with the actuator and Spring MVC, on a real PostgreSQL. The writes need the endpoint's access opened
 * ({@link TaskQueueEndpointAccessIntegrationTests} shows them refused without it).
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=health,taskqueue,prometheus",
				"management.endpoint.taskqueue.access=unrestricted", "management.endpoint.taskqueue.show-values=always",
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
		UUID handled = this.taskQueue.enqueue(TaskRequest.of("web-dead", "later").withDelay(Duration.ofHours(1)));
		this.http.get().uri("/taskqueue").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.queues[?(@.queue == 'web-unhandled')].scheduled").isEqualTo(List.of(1))
			.jsonPath("$.queues[?(@.queue == 'web-unhandled')].unhandled").isEqualTo(List.of(true))
			.jsonPath("$.queues[?(@.queue == 'web-dead')].scheduled").isEqualTo(List.of(1))
			.jsonPath("$.queues[?(@.queue == 'web-dead')].unhandled").isEqualTo(List.of(false))
			.jsonPath("$.queues[?(@.queue == 'web-work')].ready").isEqualTo(List.of(0))
			.jsonPath("$.queues[?(@.queue == 'web-work')].paused").isEqualTo(List.of(false))
			.jsonPath("$.sessions.length()").isEqualTo(1)
			.jsonPath("$.sessions[0].runningTasks").isEqualTo(0);
		this.http.get().uri("/taskqueue/web-unhandled").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.queue").isEqualTo("web-unhandled")
			.jsonPath("$.scheduled").isEqualTo(1)
			.jsonPath("$.unhandled").isEqualTo(true);
		delete("/taskqueue/tasks/" + handled); // the other tests count web-dead's tasks
		notFound(this.http.get().uri("/taskqueue/nobody-knows-me"), "No queue 'nobody-knows-me': it has no handler "
				+ "in this instance, and no tasks, dead tasks or pause in the database");
	}

	@Test
	void readsARunningTasksProgressAndACompletedTasksResult() {
		UUID running = this.taskQueue.enqueue("web-progress", "report");
		Await.until("the progress shows", WAIT,
				() -> this.http.get().uri("/taskqueue/tasks/" + running + "/progress").exchange().returnResult()
					.getStatus().is2xxSuccessful());
		this.http.get().uri("/taskqueue/tasks/" + running + "/progress").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.id").isEqualTo(running.toString())
			.jsonPath("$.percent").isEqualTo(40)
			.jsonPath("$.message").isEqualTo("<b>40%</b>")
			.jsonPath("$.updatedAt").isNotEmpty();
		notFound(this.http.get().uri("/taskqueue/tasks/" + running + "/result"), "No result of task " + running
				+ " (it has not completed, gave none, or completed longer ago than taskqueue.retention.history)");
		this.handlers.progressRunning.set(false);
		Await.until("the result shows", WAIT,
				() -> this.http.get().uri("/taskqueue/tasks/" + running + "/result").exchange().returnResult()
					.getStatus().is2xxSuccessful());
		this.http.get().uri("/taskqueue/tasks/" + running + "/result").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.queue").isEqualTo("web-progress")
			.jsonPath("$.result.rows").isEqualTo(7)
			.jsonPath("$.result.name").isEqualTo("report");
		notFound(this.http.get().uri("/taskqueue/tasks/" + running + "/progress"), "No progress of a running task "
				+ running);
		this.http.get().uri("/taskqueue/tasks/not-an-id/result").exchange().expectStatus().isBadRequest();
		this.http.get().uri("/taskqueue/tasks/" + running + "/other").exchange().expectStatus().isBadRequest();
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
		notFound(this.http.post().uri("/taskqueue/tasks/" + ids.get(0) + "/retry"), "No dead task " + ids.get(0));
		Await.until("the retried task is handled", WAIT, () -> this.handlers.handled.contains(ids.get(0)));
		delete("/taskqueue/tasks/" + ids.get(1)).jsonPath("$.result").isEqualTo("deleted");
		post("/taskqueue/web-dead/retry-dead").jsonPath("$.tasks").isEqualTo(2);
		Await.until("the others are handled", WAIT,
				() -> this.handlers.handled.containsAll(List.of(ids.get(2), ids.get(3))));
		assertThat(this.handlers.handled).doesNotContain(ids.get(1));

		this.handlers.failing.set(true);
		this.taskQueue.enqueueAll(List.of(TaskRequest.of("web-dead", "5"), TaskRequest.of("web-dead", "6")));
		Await.until("two dead tasks", WAIT, () -> dead() == 2);
		delete("/taskqueue/web-dead/dead?all=true").jsonPath("$.tasks")
			.isEqualTo(2)
			.jsonPath("$.action")
			.isEqualTo("delete-dead");
		assertThat(dead()).isZero();
	}

	@Test
	void deleteTheDeadTasksAFilterMatches() {
		// Eight dead tasks of a queue no one handles: five timeouts (two of them failed two hours ago), three others.
		this.jdbc.update("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error)
				SELECT gen_random_uuid(), 'web-bulk', '{}', 0, 3, now() - interval '1 day',
				       now() - CASE WHEN i <= 2 THEN interval '2 hours' ELSE interval '1 minute' END,
				       CASE WHEN i <= 5 THEN 'java.net.SocketTimeoutException: Read timed out' ELSE 'boom' END
				FROM generate_series(1, 8) i
				""");
		String hourAgo = this.jdbc.queryForObject("SELECT to_char((now() - interval '1 hour') AT TIME ZONE 'UTC', "
				+ "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')", String.class);
		delete("/taskqueue/web-bulk/dead?error=TIMED&failedBefore=" + hourAgo).jsonPath("$.tasks").isEqualTo(2);
		assertThat(dead("web-bulk")).isEqualTo(6);
		delete("/taskqueue/web-bulk/dead?error=timed&failedFrom=" + hourAgo).jsonPath("$.tasks").isEqualTo(3);
		assertThat(this.jdbc.queryForList("SELECT error FROM taskqueue_dead_task WHERE queue = 'web-bulk'",
				String.class)).containsExactly("boom", "boom", "boom");
		badRequest(this.http.delete().uri("/taskqueue/web-bulk/dead?failedFrom=yesterday"),
				"failedFrom must be an ISO instant such as 2026-11-27T09:30:00Z but was 'yesterday'");
		// A retry takes all the queue's dead tasks, in chunks.
		post("/taskqueue/web-bulk/retry-dead").jsonPath("$.tasks").isEqualTo(3);
		assertThat(dead("web-bulk")).isZero();
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = 'web-bulk'",
				Integer.class)).isEqualTo(3);
	}

	@Test
	void retryAndDeleteTheWaitingTasksAFilterMatches() {
		// Eight tasks of a queue no one handles, enqueued three hours ago and waiting to be retried in an hour: five
		// after a timeout (two of them failed two hours ago, the others a minute ago), three after another error.
		this.jdbc.update("""
				INSERT INTO taskqueue_task (id, queue, payload, run_at, enqueued_at, attempt, last_error, attempt_log)
				SELECT gen_random_uuid(), 'web-waiting', '{}', now() + interval '1 hour', now() - interval '3 hours', 1,
				       CASE WHEN i <= 5 THEN 'java.net.SocketTimeoutException: Read timed out' ELSE 'boom' END,
				       jsonb_build_array(jsonb_build_object('attempt', 1, 'outcome', 'failed', 'ended',
				           now() - CASE WHEN i <= 2 THEN interval '2 hours' ELSE interval '1 minute' END))
				FROM generate_series(1, 8) i
				""");
		String hourAgo = this.jdbc.queryForObject("SELECT to_char((now() - interval '1 hour') AT TIME ZONE 'UTC', "
				+ "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')", String.class);
		delete("/taskqueue/web-waiting/waiting?error=TIMED&failedBefore=" + hourAgo).jsonPath("$.tasks")
			.isEqualTo(2)
			.jsonPath("$.action")
			.isEqualTo("delete-waiting");
		assertThat(waiting("web-waiting", "true")).isEqualTo(6);
		badRequest(this.http.delete().uri("/taskqueue/web-waiting/waiting?failedFrom=yesterday"),
				"failedFrom must be an ISO instant such as 2026-11-27T09:30:00Z but was 'yesterday'");
		// A retry makes all the queue's waiting tasks due now, and keeps their attempts.
		post("/taskqueue/web-waiting/retry-waiting").jsonPath("$.tasks").isEqualTo(6);
		assertThat(waiting("web-waiting", "run_at <= now() AND attempt = 1")).isEqualTo(6);
		delete("/taskqueue/web-waiting/waiting?error=timed&failedFrom=" + hourAgo).jsonPath("$.tasks").isEqualTo(3);
		assertThat(this.jdbc.queryForList("SELECT last_error FROM taskqueue_task WHERE queue = 'web-waiting'",
				String.class)).containsExactly("boom", "boom", "boom");
	}

	@Test
	void aBulkDeleteWithoutAConditionNeedsAllSoThatAMisspeltFilterDeletesNothing() {
		this.jdbc.update("""
				INSERT INTO taskqueue_task (id, queue, payload, run_at, attempt, last_error)
				SELECT gen_random_uuid(), 'web-typo', '{}', now() + interval '1 hour', 1, 'boom'
				FROM generate_series(1, 4) i
				""");
		// "errror" is not a parameter of the endpoint: it never sees it, and must not take "no filter" for "all".
		for (String second : List.of("waiting", "dead")) {
			badRequest(this.http.delete().uri("/taskqueue/web-typo/" + second + "?errror=x"), "Give error, "
					+ "failedFrom or failedBefore to delete the " + second + " tasks they match, or all=true to "
					+ "delete every " + second + " task of the queue");
			badRequest(this.http.delete().uri("/taskqueue/web-typo/" + second + "?all=true&error=boom"),
					"all=true deletes every " + second + " task of the queue: give it without error, failedFrom "
							+ "or failedBefore");
		}
		badRequest(this.http.delete().uri("/taskqueue/web-typo/waiting?failedFrom=2026-11-27T10:00:00Z"
				+ "&failedBefore=2026-11-27T09:00:00Z"), "failedFrom must be earlier than failedBefore, but was "
						+ "2026-11-27T10:00:00Z and 2026-11-27T09:00:00Z");
		assertThat(waiting("web-typo", "true")).isEqualTo(4);
		delete("/taskqueue/web-typo/waiting?all=true").jsonPath("$.tasks").isEqualTo(4);
		assertThat(waiting("web-typo", "true")).isZero();
	}

	@Test
	void retryWhatAFilterInTheBodyMatches() {
		// Five dead tasks of a queue no one handles, three after a timeout; and four waiting tasks, two after one.
		this.jdbc.update("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error)
				SELECT gen_random_uuid(), 'web-body', '{}', 0, 3, now(), now(),
				       CASE WHEN i <= 3 THEN 'java.net.SocketTimeoutException: Read timed out' ELSE 'boom' END
				FROM generate_series(1, 5) i
				""");
		this.jdbc.update("""
				INSERT INTO taskqueue_task (id, queue, payload, run_at, attempt, last_error)
				SELECT gen_random_uuid(), 'web-body', '{}', now() + interval '1 hour', 1,
				       CASE WHEN i <= 2 THEN 'java.net.SocketTimeoutException: Read timed out' ELSE 'boom' END
				FROM generate_series(1, 4) i
				""");
		postJson("/taskqueue/web-body", "{\"action\": \"retry-waiting\", \"error\": \"TIMED\"}").jsonPath("$.tasks")
			.isEqualTo(2)
			.jsonPath("$.action")
			.isEqualTo("retry-waiting");
		assertThat(waiting("web-body", "run_at <= now()")).isEqualTo(2);
		postJson("/taskqueue/web-body", "{\"action\": \"retry-dead\", \"error\": \"timed\"}").jsonPath("$.tasks")
			.isEqualTo(3);
		assertThat(dead("web-body")).isEqualTo(2);
		this.http.post()
			.uri("/taskqueue/web-body")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\": \"pause\"}")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.json("{\"error\": " + quoted("Unknown action 'pause': POST {queue} with a filter takes retry-dead or "
					+ "retry-waiting (pause and resume are POST {queue}/pause and {queue}/resume)") + "}");
	}

	private RestTestClient.BodyContentSpec postJson(String uri, String json) {
		return this.http.post()
			.uri(uri)
			.contentType(MediaType.APPLICATION_JSON)
			.body(json)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody();
	}

	private int waiting(String queue, String where) {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = ? AND " + where,
				Integer.class, queue);
	}

	@Test
	void cancelARunningTask() {
		UUID running = this.taskQueue.enqueue("web-slow", "runs until interrupted");
		Await.until("the slow task runs", WAIT, this.handlers.slowRunning::get);
		try {
			delete("/taskqueue/tasks/" + running).jsonPath("$.result").isEqualTo("cancelled").jsonPath("$.id")
				.isEqualTo(running.toString());
			Await.until("its handler was interrupted and its request is done with", WAIT, () -> this.jdbc
				.queryForObject("SELECT count(*) FROM taskqueue_cancel_request", Integer.class) == 0);
			notFound(this.http.delete().uri("/taskqueue/tasks/" + running),
					"No waiting, running or dead task " + running);
			assertThat(this.handlers.handled).doesNotContain(running);
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class,
					running)).isZero();
		}
		finally {
			this.handlers.slowRunning.set(false);
		}
	}

	@Test
	void cancelAWaitingTask() {
		UUID later = this.taskQueue.enqueue(TaskRequest.of("web-work", "later").withDelay(Duration.ofHours(1)));
		delete("/taskqueue/tasks/" + later).jsonPath("$.result").isEqualTo("cancelled").jsonPath("$.id")
			.isEqualTo(later.toString());
		notFound(this.http.delete().uri("/taskqueue/tasks/" + later),
				"No waiting, running or dead task " + later);
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class, later))
			.isZero();
	}

	@Test
	void listDeadTasksPageByPageAndReadOne() {
		List<UUID> ids = this.taskQueue.enqueueAll(List.of(TaskRequest.of("web-doomed", "first"),
				TaskRequest.of("web-doomed", "second"), TaskRequest.of("web-doomed", "third").withFairnessKey("tenant-3")));
		Await.until("three dead tasks", WAIT, () -> dead("web-doomed") == 3);
		List<String> newestFirst = this.jdbc.queryForList("SELECT id::text FROM taskqueue_dead_task "
				+ "WHERE queue = 'web-doomed' ORDER BY failed_at DESC, id DESC", String.class);
		this.http.get().uri("/taskqueue/web-doomed/dead?limit=2").exchange().expectStatus().isOk()
			.expectBody()
			.jsonPath("$.queue").isEqualTo("web-doomed")
			.jsonPath("$.tasks[*].id").isEqualTo(new ArrayList<>(newestFirst.subList(0, 2)))
			.jsonPath("$.tasks[0].attempts").isEqualTo(1)
			.jsonPath("$.tasks[0].error").value(String.class, (error) -> assertThat(error)
				.matches("dev.taskqueue.NonRetryableTaskException: doomed: (first|second|third)"))
			.jsonPath("$.tasks[0].failedAt").isNotEmpty()
			.jsonPath("$.next").isNotEmpty();
		Object next = this.http.get().uri("/taskqueue/web-doomed/dead?limit=2").exchange().expectBody(Map.class)
			.returnResult().getResponseBody().get("next");
		this.http.get().uri("/taskqueue/web-doomed/dead?limit=2&cursor=" + next).exchange().expectStatus().isOk()
			.expectBody()
			.jsonPath("$.tasks[*].id").isEqualTo(new ArrayList<>(newestFirst.subList(2, 3)))
			.jsonPath("$.next").doesNotExist();
		this.http.get().uri("/taskqueue/*/dead").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.queue").doesNotExist()
			.jsonPath("$.tasks[?(@.queue == 'web-doomed')].id").value(List.class,
					(found) -> assertThat(found).containsExactlyInAnyOrderElementsOf(newestFirst))
			.jsonPath("$.tasks[?(@.fairnessKey)].id").isEqualTo(List.of(ids.get(2).toString()))
			.jsonPath("$.tasks[?(@.fairnessKey)].fairnessKey").isEqualTo(List.of("tenant-3"));

		this.http.get().uri("/taskqueue/tasks/" + ids.get(1)).exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.id").isEqualTo(ids.get(1).toString())
			.jsonPath("$.queue").isEqualTo("web-doomed")
			.jsonPath("$.priority").isEqualTo(0)
			.jsonPath("$.attempts").isEqualTo(1)
			.jsonPath("$.payload").isEqualTo("second") // the JSON string "second", not its text
			.jsonPath("$.errorLine").isEqualTo("dev.taskqueue.NonRetryableTaskException: doomed: second")
			.jsonPath("$.error").value(String.class, (error) -> assertThat(error)
				.startsWith("dev.taskqueue.NonRetryableTaskException: doomed: second\n\tat "))
			.jsonPath("$.enqueuedAt").isNotEmpty()
			.jsonPath("$.failedAt").isNotEmpty()
			.jsonPath("$.fairnessKey").doesNotHaveJsonPath()
			.jsonPath("$.attemptLog.length()").isEqualTo(1)
			.jsonPath("$.attemptLog[0].attempt").isEqualTo(1)
			.jsonPath("$.attemptLog[0].outcome").isEqualTo("dead")
			.jsonPath("$.attemptLog[0].startedAt").isNotEmpty()
			.jsonPath("$.attemptLog[0].endedAt").isNotEmpty()
			.jsonPath("$.attemptLog[0].instance").isNotEmpty()
			.jsonPath("$.attemptLog[0].error").value(String.class, (error) -> assertThat(error)
				.startsWith("dev.taskqueue.NonRetryableTaskException: doomed: second\n\tat ").hasSize(500));
		this.http.get().uri("/taskqueue/tasks/" + ids.get(1) + "/attempts").exchange().expectStatus().isOk()
			.expectBody()
			.jsonPath("$.id").isEqualTo(ids.get(1).toString())
			.jsonPath("$.attempts[*].outcome").isEqualTo(List.of("dead"));
		// Its tenant: the key it goes back with when retried.
		this.http.get().uri("/taskqueue/tasks/" + ids.get(2)).exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.fairnessKey").isEqualTo("tenant-3");
		UUID unknown = UUID.randomUUID();
		notFound(this.http.get().uri("/taskqueue/tasks/" + unknown), "No dead task " + unknown);
		this.http.get().uri("/taskqueue/tasks/" + unknown + "/attempts").exchange().expectStatus().isOk()
			.expectBody()
			.jsonPath("$.attempts.length()").isEqualTo(0);
		delete("/taskqueue/web-doomed/dead?all=true").jsonPath("$.tasks").isEqualTo(3);
		this.http.get().uri("/taskqueue/web-doomed/dead").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.tasks.length()").isEqualTo(0);
	}

	@Test
	void deleteTheWaitingTasksOfAQueueButNotTheRunningOnes() {
		post("/taskqueue/web-work/pause");
		sleep(Duration.ofMillis(500)); // a few heartbeats
		UUID running = this.taskQueue.enqueue("web-slow", "runs until released");
		Await.until("the slow task runs", WAIT, () -> this.handlers.slowRunning.get());
		List<UUID> waiting = this.taskQueue.enqueueAll(List.of(TaskRequest.of("web-work", "1"),
				TaskRequest.of("web-work", "2"), TaskRequest.of("web-work", "3").withDelay(Duration.ofHours(1)),
				TaskRequest.of("web-slow", "waits behind the running one").withDelay(Duration.ofHours(1))));
		delete("/taskqueue/web-work/waiting?all=true").jsonPath("$.tasks").isEqualTo(3)
			.jsonPath("$.action").isEqualTo("delete-waiting")
			.jsonPath("$.paused").isEqualTo(true);
		delete("/taskqueue/web-work/waiting?all=true").jsonPath("$.tasks").isEqualTo(0);
		delete("/taskqueue/web-slow/waiting?all=true").jsonPath("$.tasks").isEqualTo(1).jsonPath("$.paused").isEqualTo(false);
		assertThat(this.jdbc.queryForList("SELECT id FROM taskqueue_task WHERE queue IN ('web-work', 'web-slow')",
				UUID.class)).containsExactly(running);
		post("/taskqueue/web-work/resume");
		this.handlers.slowRunning.set(false);
		Await.until("the running task completes", WAIT, () -> this.handlers.handled.contains(running));
		assertThat(this.handlers.handled).doesNotContainAnyElementsOf(waiting);
	}

	@Test
	void unknownQueuesAndTasksAreNotFound() {
		String noQueue = "No queue 'nobody-knows-me': it has no handler in this instance, and no tasks, dead tasks "
				+ "or pause in the database";
		notFound(this.http.post().uri("/taskqueue/nobody-knows-me/pause"), noQueue);
		notFound(this.http.post().uri("/taskqueue/nobody-knows-me/resume"), noQueue);
		notFound(this.http.post().uri("/taskqueue/nobody-knows-me/retry-dead"), noQueue);
		notFound(this.http.delete().uri("/taskqueue/nobody-knows-me/dead?all=true"), noQueue);
		notFound(this.http.delete().uri("/taskqueue/nobody-knows-me/waiting?all=true"), noQueue);
		notFound(this.http.get().uri("/taskqueue/nobody-knows-me/dead"), noQueue);
		this.http.get().uri("/taskqueue").exchange().expectBody()
			.jsonPath("$.queues[?(@.queue == 'nobody-knows-me')]").isEmpty();
		UUID unknown = UUID.randomUUID();
		notFound(this.http.post().uri("/taskqueue/tasks/" + unknown + "/retry"), "No dead task " + unknown);
		notFound(this.http.delete().uri("/taskqueue/tasks/" + unknown),
				"No waiting, running or dead task " + unknown);
		notFound(this.http.get().uri("/taskqueue/tasks/" + unknown), "No dead task " + unknown);
		// A queue known only by its tasks in the database, with no handler here.
		this.taskQueue.enqueue(TaskRequest.of("web-elsewhere", "x").withDelay(Duration.ofHours(1)));
		post("/taskqueue/web-elsewhere/pause").jsonPath("$.paused").isEqualTo(true);
		post("/taskqueue/web-elsewhere/resume").jsonPath("$.paused").isEqualTo(false);
		this.http.get().uri("/taskqueue/web-elsewhere/dead").exchange().expectStatus().isOk();
	}

	@Test
	void badRequestsAreRejectedWithTheReason() {
		badRequest(this.http.post().uri("/taskqueue/web-work/explode"),
				"Unknown action 'explode': use pause, resume, retry-dead or retry-waiting");
		String notAQueue = "queue must be 1 to 100 letters, digits, '.', '_', '-' or ':' but was 'not!a!queue'";
		badRequest(this.http.post().uri("/taskqueue/not!a!queue/pause"), notAQueue);
		badRequest(this.http.delete().uri("/taskqueue/not!a!queue/waiting?all=true"), notAQueue);
		badRequest(this.http.get().uri("/taskqueue/not!a!queue/dead"), notAQueue);
		badRequest(this.http.get().uri("/taskqueue/not!a!queue"), notAQueue);
		badRequest(this.http.post().uri("/taskqueue/tasks/not-an-id/retry"), "'not-an-id' is not a task id");
		badRequest(this.http.delete().uri("/taskqueue/tasks/not-an-id"), "'not-an-id' is not a task id");
		badRequest(this.http.get().uri("/taskqueue/tasks/not-an-id"), "'not-an-id' is not a task id");
		badRequest(this.http.post().uri("/taskqueue/web-work/" + UUID.randomUUID() + "/retry"),
				"Use POST /taskqueue/tasks/{id}/retry");
		badRequest(this.http.delete().uri("/taskqueue/web-work/everything"),
				"Use DELETE /taskqueue/{queue}/dead, /taskqueue/{queue}/waiting or /taskqueue/tasks/{id}");
		badRequest(this.http.get().uri("/taskqueue/web-work/everything"),
				"Use GET /taskqueue/{queue}/dead or /taskqueue/tasks/{id}");
		badRequest(this.http.get().uri("/taskqueue/web-work/dead?limit=0"), "limit must be from 1 to 500 but was 0");
		badRequest(this.http.get().uri("/taskqueue/web-work/dead?limit=501"),
				"limit must be from 1 to 500 but was 501");
		badRequest(this.http.get().uri("/taskqueue/*/dead?limit=many"), "limit must be from 1 to 500 but was 'many'");
		badRequest(this.http.get().uri("/taskqueue/web-work/dead?cursor=yesterday"),
				"cursor must be the 'next' of a page of dead tasks but was 'yesterday'");
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
		// The handler returns before its completion commits, and the completion is counted after: wait for the count.
		Await.until("the completion is counted and the gauges are registered", WAIT, () -> {
			String scraped = prometheus();
			return scraped.contains("taskqueue_tasks_processed_total{outcome=\"completed\",queue=\"web-work\"}")
					&& scraped.contains("taskqueue_queue_ready{");
		});
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

	private void notFound(RestTestClient.RequestHeadersSpec<?> request, String error) {
		request.exchange().expectStatus().isNotFound().expectBody().json("{\"error\": " + quoted(error) + "}");
	}

	private void badRequest(RestTestClient.RequestHeadersSpec<?> request, String error) {
		request.exchange().expectStatus().isBadRequest().expectBody().json("{\"error\": " + quoted(error) + "}");
	}

	private static String quoted(String text) {
		return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
	}

	private int dead() {
		return dead("web-dead");
	}

	private int dead(String queue) {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = ?", Integer.class,
				queue);
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

		final AtomicBoolean slowRunning = new AtomicBoolean();

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

		@TaskHandler(queue = "web-doomed")
		void doomed(String payload) {
			throw new NonRetryableTaskException("doomed: " + payload);
		}

		final AtomicBoolean progressRunning = new AtomicBoolean(true);

		@TaskHandler(queue = "web-progress")
		Map<String, Object> progress(String payload, TaskContext context) throws InterruptedException {
			context.progress(40, "<b>40%</b>");
			while (this.progressRunning.get()) {
				Thread.sleep(10);
			}
			return Map.of("name", payload, "rows", 7);
		}

		@TaskHandler(queue = "web-slow")
		void slow(String payload, TaskContext context) throws InterruptedException {
			this.slowRunning.set(true);
			while (this.slowRunning.get()) {
				Thread.sleep(10);
			}
			this.handled.add(context.id());
		}

	}

}
