package dev.taskqueue.sample;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.taskqueue.BatchResult;
import dev.taskqueue.PublishResult;
import dev.taskqueue.sample.DemoTaskController.Enqueued;
import dev.taskqueue.sample.SignupController.Signup;
import dev.taskqueue.sample.StatsController.Stats;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample over HTTP, on its own embedded PostgreSQL in a temporary directory.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-postgres.data-dir=", "sample.embedded-postgres.port=0",
				"taskqueue.worker.poll-interval=50ms", "taskqueue.retry.backoff.initial-delay=10ms",
				"taskqueue.retry.backoff.max-delay=100ms", "taskqueue.queues.demo.max-attempts=50",
				"taskqueue.worker.heartbeat-interval=100ms" })
class SampleApplicationIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private LedgerHandler ledger;

	private RestTestClient http;

	@BeforeEach
	void connect() {
		this.http = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port).build();
	}

	@Test
	void aBatchIsFollowedByItsReportAndItsProgressCanBeRead() {
		BatchResult batch = this.http.post().uri("/batches?count=5").exchange().expectStatus().isAccepted()
			.expectBody(BatchResult.class)
			.returnResult()
			.getResponseBody();
		assertThat(batch.taskIds()).hasSize(5);
		await().atMost(TIMEOUT).until(() -> this.jdbc.sql("SELECT count(*) FROM taskqueue_task WHERE id = ?")
			.param(batch.thenTaskId()).query(Long.class).single() == 0 && this.jdbc
			.sql("SELECT count(*) FROM taskqueue_batch WHERE id = ? AND finished_at IS NOT NULL")
			.param(batch.id()).query(Long.class).single() == 1);
		this.http.get().uri("/batches/" + batch.id()).exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.total").isEqualTo(5)
			.jsonPath("$.completed").isEqualTo(5)
			.jsonPath("$.dead").isEqualTo(0)
			.jsonPath("$.thenTaskId").isEqualTo(batch.thenTaskId().toString());
		this.http.get().uri("/batches/" + UUID.randomUUID()).exchange().expectStatus().isNotFound();
	}

	@Test
	void entriesOfAnAccountAreBookedInOrderAndATopicReachesItsSubscriber() {
		post("/accounts/ada/entries?count=8", Map.of()).expectStatus().isAccepted();
		post("/accounts/bob/entries?count=8", Map.of()).expectStatus().isAccepted();
		await().atMost(TIMEOUT)
			.until(() -> this.ledger.booked("ada").size() == 8 && this.ledger.booked("bob").size() == 8);
		assertThat(this.ledger.booked("ada")).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
		assertThat(this.ledger.booked("bob")).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
		PublishResult published = post("/topics/demo-finished", Map.of()).expectStatus()
			.isAccepted()
			.expectBody(PublishResult.class)
			.returnResult()
			.getResponseBody();
		assertThat(published.count()).isOne();
		await().atMost(TIMEOUT).until(() -> tasksOn(DemoReportHandler.QUEUE, "taskqueue_task") == 0);
	}

	@Test
	void signupIsStoredAndWelcomed() {
		String email = uniqueEmail();
		Signup signup = signUp(email);
		assertThat(signup.email()).isEqualTo(email);
		await().atMost(TIMEOUT).until(() -> welcomed(email) && tasksFor(email, "taskqueue_task") == 0);
		assertThat(tasksFor(email, "taskqueue_dead_task")).isZero();
		assertThat(this.jdbc.sql("SELECT id FROM signup WHERE email = ?").param(email).query(UUID.class).single())
			.isEqualTo(signup.id());
	}

	@Test
	void secondSignupWithTheSameEmailIsRejectedAndItsTaskRolledBack() {
		String email = uniqueEmail();
		signUp(email);
		post("/signups", Map.of("email", email)).expectStatus().isEqualTo(409);
		await().atMost(TIMEOUT).until(() -> welcomed(email) && tasksFor(email, "taskqueue_task") == 0);
		assertThat(tasksFor(email, "taskqueue_dead_task")).isZero();
		assertThat(this.jdbc.sql("SELECT count(*) FROM signup WHERE email = ?").param(email).query(Long.class).single())
			.isOne();
	}

	@Test
	void dashboardShowsTheQueues() {
		this.http.get().uri("/taskqueue").exchange().expectStatus().isOk().expectBody(String.class)
			.value((html) -> assertThat(html).contains(">demo</a>").contains(">welcome-emails</a>")
				.contains("method=\"post\""));
	}

	@Test
	void invalidEmailIsRejectedAndNothingIsEnqueued() {
		String email = "not-an-email-" + UUID.randomUUID();
		post("/signups", Map.of("email", email)).expectStatus().isBadRequest();
		post("/signups", Map.of("email", " ")).expectStatus().isBadRequest();
		assertThat(tasksFor(email, "taskqueue_task")).isZero();
		assertThat(this.jdbc.sql("SELECT count(*) FROM signup WHERE email = ?").param(email).query(Long.class).single())
			.isZero();
	}

	@Test
	void demoTasksAreAllHandledDespiteRandomFailures() {
		Enqueued enqueued = post("/tasks/demo?count=20", Map.of()).expectStatus()
			.isAccepted()
			.expectBody(Enqueued.class)
			.returnResult()
			.getResponseBody();
		assertThat(enqueued).isEqualTo(new Enqueued("demo", 20));
		await().atMost(TIMEOUT).until(() -> tasksOn("demo", "taskqueue_task") == 0);
		assertThat(tasksOn("demo", "taskqueue_dead_task")).isZero();
		Stats stats = this.http.get().uri("/stats").exchange().expectBody(Stats.class).returnResult().getResponseBody();
		assertThat(stats.waiting()).isZero();
		assertThat(stats.running()).isZero();
		assertThat(stats.dead()).isZero();
	}

	@Test
	void failingDemoTasksAreDeadLettersToListReadRetryAndDelete() {
		post("/tasks/demo?count=2&fail=true", Map.of()).expectStatus().isAccepted();
		await().atMost(TIMEOUT).until(() -> tasksOn("demo", "taskqueue_dead_task") == 2);
		String error = "dev.taskqueue.NonRetryableTaskException: Demo task 1 of 2 was enqueued with fail=true";
		this.http.get().uri("/actuator/taskqueue/demo/dead").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.tasks.length()").isEqualTo(2)
			.jsonPath("$.tasks[?(@.payload.number == 1)].error").isEqualTo(List.of(error))
			.jsonPath("$.tasks[?(@.payload.number == 1)].attempts").isEqualTo(List.of(1))
			.jsonPath("$.next").doesNotExist();
		UUID first = this.jdbc.sql("SELECT id FROM taskqueue_dead_task WHERE queue = 'demo' "
				+ "AND (payload ->> 'number')::int = 1").query(UUID.class).single();
		this.http.get().uri("/actuator/taskqueue/tasks/" + first).exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.errorLine").isEqualTo(error)
			.jsonPath("$.error").value(String.class, (trace) -> assertThat(trace).contains("DemoTaskHandler.handle"))
			.jsonPath("$.payload.fail").isEqualTo(true);

		// A retry runs it again; its payload still asks to fail, so it comes back, failed later than before.
		Instant failedAt = failedAt(first);
		this.http.post().uri("/actuator/taskqueue/tasks/" + first + "/retry").exchange().expectStatus().isOk()
			.expectBody().jsonPath("$.result").isEqualTo("retried");
		await().atMost(TIMEOUT).until(() -> failedAt(first) != null && failedAt(first).isAfter(failedAt));
		this.http.delete().uri("/actuator/taskqueue/demo/dead?all=true").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.tasks").isEqualTo(2);
		this.http.post().uri("/actuator/taskqueue/tasks/" + first + "/retry").exchange().expectStatus()
			.isNotFound().expectBody().jsonPath("$.error").isEqualTo("No dead task " + first);
	}

	@Test
	void aMistakenBacklogIsDeletedWithoutRunningIt() {
		this.http.post().uri("/actuator/taskqueue/demo/pause").exchange().expectStatus().isOk();
		try {
			Thread.sleep(500); // several heartbeats: every instance has seen the pause
			post("/tasks/demo?count=5000", Map.of()).expectStatus().isAccepted();
			this.http.delete().uri("/actuator/taskqueue/demo/waiting?all=true").exchange().expectStatus().isOk().expectBody()
				.jsonPath("$.tasks").isEqualTo(5000)
				.jsonPath("$.action").isEqualTo("delete-waiting");
			assertThat(tasksOn("demo", "taskqueue_task")).isZero();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.http.post().uri("/actuator/taskqueue/demo/resume").exchange().expectStatus().isOk();
		}
	}

	@Test
	void invalidQueueNameIsRejected() {
		post("/tasks/not a queue?count=1", Map.of()).expectStatus().isBadRequest();
		post("/tasks/demo?count=0", Map.of()).expectStatus().isBadRequest();
	}

	private Signup signUp(String email) {
		return post("/signups", Map.of("email", email)).expectStatus()
			.isCreated()
			.expectBody(Signup.class)
			.returnResult()
			.getResponseBody();
	}

	private RestTestClient.ResponseSpec post(String uri, Object body) {
		return this.http.post().uri(uri).contentType(MediaType.APPLICATION_JSON).body(body).exchange();
	}

	private boolean welcomed(String email) {
		return this.jdbc.sql("SELECT welcome_sent_at IS NOT NULL FROM signup WHERE email = ?")
			.param(email)
			.query(Boolean.class)
			.single();
	}

	private long tasksFor(String email, String table) {
		return this.jdbc.sql("SELECT count(*) FROM " + table + " WHERE payload ->> 'address' = ?")
			.param(email)
			.query(Long.class)
			.single();
	}

	private Instant failedAt(UUID id) {
		return this.jdbc.sql("SELECT failed_at FROM taskqueue_dead_task WHERE id = ?")
			.param(id)
			.query(OffsetDateTime.class)
			.optional()
			.map(OffsetDateTime::toInstant)
			.orElse(null);
	}

	private long tasksOn(String queue, String table) {
		return this.jdbc.sql("SELECT count(*) FROM " + table + " WHERE queue = ?")
			.param(queue)
			.query(Long.class)
			.single();
	}

	private static String uniqueEmail() {
		return "user-" + UUID.randomUUID() + "@example.com";
	}

}
