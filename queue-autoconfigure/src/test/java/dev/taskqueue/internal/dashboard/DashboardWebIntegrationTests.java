package dev.taskqueue.internal.dashboard;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every page and action of the dashboard over HTTP, on a random port, against a real PostgreSQL: what each page
 * shows, that every value is escaped, and what each action changes in the database and says it did.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true",
				"taskqueue.dashboard.read-only=false", "taskqueue.worker.poll-interval=50ms",
				"taskqueue.worker.heartbeat-interval=200ms" })
class DashboardWebIntegrationTests {

	private static final Pattern FORM_IN_P = Pattern.compile("<p[ >](?:(?!</p>).)*?<form", Pattern.DOTALL);

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
	private DashboardTestApplication.Handlers handlers;

	@Autowired
	private ThroughputRecorder recorder;

	@Autowired
	private JdbcTemplate jdbc;

	private DashboardHttp http;

	@BeforeEach
	void connect() {
		this.http = new DashboardHttp(this.port);
	}

	@Test
	void overviewShowsQueuesChartsAndSessions() {
		List<UUID> ids = this.taskQueue.enqueueAll(List.of(TaskRequest.of("dash-ok", "a"),
				TaskRequest.of("dash-ok", "b"), TaskRequest.of("dash-ok", "c")));
		this.taskQueue.enqueue(TaskRequest.of("dash-overview", "waits").withDelay(Duration.ofHours(1)));
		Await.until("three tasks completed", WAIT, () -> this.handlers.handled.containsAll(ids));
		Await.until("their counts written", WAIT, () -> {
			this.recorder.flush();
			return minuteCount("dash-ok", "completed") >= 3;
		});
		HttpResponse<String> page = this.http.get("/taskqueue");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("text/html"));
		String html = page.body();
		assertThat(html).contains("<meta http-equiv=\"refresh\" content=\"5\">")
			.contains("href=\"/taskqueue/queues/dash-ok\"")
			.contains("href=\"/taskqueue/queues/dash-overview\"")
			.containsPattern("Completed: 3 in the last 60 minutes")
			.contains("<svg class=\"spark ok\"")
			.contains("<rect ")
			.contains("dash-ok</a></td><td data-label=\"state\">active</td>");
		// dash-overview (no handler anywhere): 0 ready, 1 scheduled, 0 running, 0 held back, 0 dead
		assertThat(html).containsPattern("dash-overview</a></td><td data-label=\"state\"><span class=\"unhandled\">"
				+ "no live instance handles this queue</span></td><td class=\"num\" data-label=\"ready\">0</td>"
				+ "<td class=\"num\" data-label=\"scheduled\">1</td><td class=\"num\" data-label=\"running\">0</td>"
				+ "<td class=\"num\" data-label=\"held back\">0</td><td class=\"num\" data-label=\"dead\">0</td>");
		String session = this.jdbc.queryForObject("SELECT id::text FROM taskqueue_session", String.class);
		assertThat(html).contains(session).containsPattern("[0-9]+(ms|s) ago");
		assertThat(this.http.get("/taskqueue/dashboard.css").body()).contains("svg.spark");
	}

	@Test
	void queuePageListsWaitingTasksInClaimOrderOnePageAtATime() {
		List<TaskRequest> requests = new ArrayList<>();
		for (int i = 0; i < 120; i++) {
			requests.add(TaskRequest.of("dash-waiting", "task " + i).withPriority(i % 3));
		}
		requests.add(TaskRequest.of("dash-waiting", "later").withDelay(Duration.ofHours(1)).withUniqueKey("k-1"));
		this.taskQueue.enqueueAll(requests);
		List<String> claimOrder = this.jdbc.queryForList("SELECT id::text FROM taskqueue_task WHERE queue = "
				+ "'dash-waiting' AND run_at <= now() ORDER BY priority DESC, run_at, id", String.class);
		List<String> shown = new ArrayList<>();
		String path = "/taskqueue/queues/dash-waiting";
		for (int page = 0; page < 3; page++) {
			String html = this.http.get(path).body();
			List<String> ids = DashboardHttp.taskIds(html);
			assertThat(ids).hasSize((page < 2) ? 50 : 20);
			shown.addAll(ids);
			List<String> next = DashboardHttp.all(html, "href=\"([^\"]+)\" rel=\"next\"");
			assertThat(next).hasSize((page < 2) ? 1 : 0);
			path = (page < 2) ? next.get(0).replace("&amp;", "&") : path;
		}
		assertThat(shown).containsExactlyElementsOf(claimOrder);
		String scheduled = this.http.get("/taskqueue/queues/dash-waiting?view=scheduled").body();
		assertThat(DashboardHttp.taskIds(scheduled)).hasSize(1);
		assertThat(scheduled).contains("k-1").contains("&quot;later&quot;").contains("scheduled (1)")
			.contains("ready (120)");
		assertThat(this.http.get("/taskqueue/queues/dash-waiting?view=running").body()).contains("No running task.");
	}

	@Test
	void aFilteredListOfWaitingTasksPagesOnInIdOrderWithItsFilter() {
		// 70 tasks of a queue no one handles waiting to be retried after a timeout, 5 after another error.
		this.jdbc.update("""
				INSERT INTO taskqueue_task (id, queue, payload, run_at, attempt, last_error)
				SELECT gen_random_uuid(), 'dash-filtered', '{}', now() + interval '1 hour', 1,
				       CASE WHEN i <= 70 THEN 'java.net.SocketTimeoutException: Read timed out' ELSE 'boom' END
				FROM generate_series(1, 75) i
				""");
		List<String> matching = this.jdbc.queryForList("SELECT id::text FROM taskqueue_task WHERE queue = "
				+ "'dash-filtered' AND last_error LIKE '%timed out' ORDER BY id", String.class);
		List<String> shown = new ArrayList<>();
		String path = "/taskqueue/queues/dash-filtered?error=TIMED";
		for (int page = 0; page < 2; page++) {
			String html = this.http.get(path).body();
			assertThat(html).contains("70 waiting tasks match.");
			List<String> ids = DashboardHttp.taskIds(html);
			assertThat(ids).hasSize((page == 0) ? 50 : 20);
			shown.addAll(ids);
			List<String> next = DashboardHttp.all(html, "href=\"([^\"]+)\" rel=\"next\"");
			assertThat(next).hasSize((page == 0) ? 1 : 0);
			if (page == 0) {
				path = next.get(0).replace("&amp;", "&");
				assertThat(path).contains("error=TIMED");
			}
		}
		assertThat(shown).containsExactlyElementsOf(matching);
	}

	@Test
	void payloadsAndErrorsAreEscapedEverywhere() {
		UUID waiting = this.taskQueue.enqueue("dash-escape", "<script>alert('waiting')</script>");
		UUID dead = this.taskQueue.enqueue("dash-dead", "<script>alert('dead')</script>");
		Await.until("the task is dead", WAIT, () -> deadCount("dash-dead", dead) == 1);
		for (String path : List.of("/taskqueue/queues/dash-escape", "/taskqueue/tasks/" + waiting, "/taskqueue/dead",
				"/taskqueue/dead?queue=dash-dead", "/taskqueue/tasks/" + dead)) {
			String html = this.http.get(path).body();
			assertThat(html).as(path).doesNotContain("<script").contains("&lt;script&gt;alert(&#39;");
			// A form (each button is one) inside a p: the parser closes the p at the form, leaving stray markup.
			assertThat(FORM_IN_P.matcher(html).find()).as(path + ": a form inside a p").isFalse();
		}
		String deadPage = this.http.get("/taskqueue/tasks/" + dead).body();
		assertThat(deadPage).contains("dev.taskqueue.NonRetryableTaskException: refused &lt;script&gt;")
			.contains("\tat ")
			.doesNotContain("fairness key");
		// A filter value goes back into the form escaped too.
		String filtered = this.http.get("/taskqueue/dead?error=" + URLEncoder.encode("\"><script>x", StandardCharsets.UTF_8))
			.body();
		assertThat(filtered).doesNotContain("<script").contains("value=\"&quot;&gt;&lt;script&gt;x\"");
	}

	@Test
	void aTasksPageShowsItsFairnessKey() {
		UUID id = this.taskQueue.enqueue(TaskRequest.of("dash-keys", "{}")
			.withDelay(Duration.ofHours(1))
			.withFairnessKey("tenant <b>"));
		assertThat(this.http.get("/taskqueue/tasks/" + id).body())
			.contains("<dt>fairness key</dt><dd>tenant &lt;b&gt;</dd>");
		UUID plain = this.taskQueue.enqueue(TaskRequest.of("dash-keys", "{}").withDelay(Duration.ofHours(1)));
		assertThat(this.http.get("/taskqueue/tasks/" + plain).body()).contains("<dt>queue</dt>")
			.doesNotContain("fairness key");
	}

	@Test
	void aDeadTasksPageShowsItsFairnessKeyAndItsRetryKeepsIt() {
		UUID id = this.taskQueue.enqueue(TaskRequest.of("dash-dead", "x").withFairnessKey("tenant <i>"));
		Await.until("the task is dead", WAIT, () -> deadCount("dash-dead", id) == 1);
		assertThat(this.http.get("/taskqueue/tasks/" + id).body()).contains("<dt>state</dt><dd>dead</dd>")
			.contains("<dt>fairness key</dt><dd>tenant &lt;i&gt;</dd>");
		Timestamp failed = this.jdbc.queryForObject("SELECT failed_at FROM taskqueue_dead_task WHERE id = ?",
				Timestamp.class, id);
		// Retried from the page, it is refused again: the dead letter it makes anew has the key the retry gave back.
		assertThat(this.http.follow(this.http.confirm("/taskqueue/tasks/" + id + "/retry", "")).body())
			.contains("Retried task " + id + ": it is back in queue dash-dead.");
		Await.until("the retried task is dead again", WAIT, () -> this.jdbc.queryForObject(
				"SELECT count(*) FROM taskqueue_dead_task WHERE id = ? AND failed_at > ?", Integer.class, id,
				failed) == 1);
		assertThat(this.jdbc.queryForObject("SELECT fairness_key FROM taskqueue_dead_task WHERE id = ?",
				String.class, id)).isEqualTo("tenant <i>");
		assertThat(this.http.get("/taskqueue/tasks/" + id).body())
			.contains("<dt>fairness key</dt><dd>tenant &lt;i&gt;</dd>");
	}

	@Test
	void deadLettersFilterByQueueAndErrorText() {
		UUID first = this.taskQueue.enqueue("dash-dead", "needle one");
		UUID second = this.taskQueue.enqueue("dash-dead", "haystack two");
		Await.until("both dead", WAIT, () -> deadCount("dash-dead", first) + deadCount("dash-dead", second) == 2);
		assertThat(DashboardHttp.taskIds(this.http.get("/taskqueue/dead?queue=dash-dead&error=NEEDLE").body()))
			.containsExactly(first.toString());
		assertThat(DashboardHttp.taskIds(this.http.get("/taskqueue/dead?queue=dash-dead").body()))
			.contains(first.toString(), second.toString());
		assertThat(DashboardHttp.taskIds(this.http.get("/taskqueue/dead?queue=dash-other").body())).isEmpty();
		assertThat(this.http.get("/taskqueue/dead?queue=bad%20name").statusCode()).isEqualTo(400);
	}

	@Test
	void theSearchBoxFindsTasksByKeyEscapedAndRefusesTooLongAText() {
		String key = "<b>key</b>";
		UUID id = this.taskQueue.enqueue(TaskRequest.of("dash-search", "{}").withUniqueKey(key));
		String html = this.http.get("/taskqueue/search?q=" + URLEncoder.encode(key, StandardCharsets.UTF_8)).body();
		assertThat(html).doesNotContain("<b>key")
			.contains("1 task whose id, unique key, ordering key or batch id is <code>&lt;b&gt;key&lt;/b&gt;</code>.")
			.contains("value=\"&lt;b&gt;key&lt;/b&gt;\"");
		assertThat(DashboardHttp.taskIds(html)).containsExactly(id.toString());
		// Every page has the box; a GET form, with no token to carry.
		assertThat(this.http.get("/taskqueue/dead").body())
			.contains("<form method=\"get\" action=\"/taskqueue/search\" class=\"search\" role=\"search\">");
		assertThat(this.http.get("/taskqueue/search?q=nothing-is-called-this").body()).contains("No task whose id");
		assertThat(this.http.get("/taskqueue/search").body()).contains("Type a task&#39;s id");
		HttpResponse<String> tooLong = this.http.get("/taskqueue/search?q=" + "k".repeat(1001));
		assertThat(tooLong.statusCode()).isEqualTo(400);
		assertThat(tooLong.body()).contains("q must be at most 1000 characters but has 1001");
	}

	@Test
	void pauseAndResumeAQueueSayWhatTheyDid() {
		HttpResponse<String> paused = this.http.act("/taskqueue/queues/dash-pause/pause", "");
		assertThat(paused.statusCode()).isEqualTo(303);
		assertThat(paused.headers().firstValue("Location")).hasValueSatisfying(
				(location) -> assertThat(location).endsWith("/taskqueue"));
		assertThat(this.http.follow(paused).body()).contains("Paused queue dash-pause");
		assertThat(isPaused("dash-pause")).isTrue();
		// The message is shown once.
		assertThat(this.http.get("/taskqueue").body()).doesNotContain("Paused queue dash-pause");
		HttpResponse<String> resumed = this.http.act("/taskqueue/queues/dash-pause/resume", "from=queue");
		assertThat(resumed.headers().firstValue("Location")).hasValueSatisfying(
				(location) -> assertThat(location).endsWith("/taskqueue/queues/dash-pause"));
		assertThat(this.http.follow(resumed).body()).contains("Resumed queue dash-pause.");
		assertThat(isPaused("dash-pause")).isFalse();
	}

	@Test
	void cancelAWaitingTaskAfterConfirming() {
		UUID id = this.taskQueue.enqueue(TaskRequest.of("dash-cancel", "x").withDelay(Duration.ofHours(1)));
		HttpResponse<String> asked = this.http.act("/taskqueue/tasks/" + id + "/cancel", "");
		assertThat(asked.statusCode()).isEqualTo(200);
		assertThat(asked.body()).contains("Cancel task " + id + "?").contains("name=\"confirm\" value=\"");
		assertThat(taskCount(id)).isEqualTo(1);
		HttpResponse<String> done = this.http.confirm("/taskqueue/tasks/" + id + "/cancel", "");
		assertThat(done.statusCode()).isEqualTo(303);
		assertThat(this.http.follow(done).body()).contains("Cancelled task " + id + ".");
		assertThat(taskCount(id)).isZero();
		assertThat(this.http.follow(this.http.confirm("/taskqueue/tasks/" + id + "/cancel", "")).body())
			.contains("was not cancelled");
		assertThat(this.http.get("/taskqueue/tasks/" + id).statusCode()).isEqualTo(404);
	}

	@Test
	void retryAndDeleteDeadTasksOneByOneAndAllOfAQueue() {
		List<UUID> ids = this.taskQueue.enqueueAll(List.of(TaskRequest.of("dash-dead", "ok 1"),
				TaskRequest.of("dash-dead", "x"), TaskRequest.of("dash-dead", "ok 3"), TaskRequest.of("dash-dead", "ok 4"),
				TaskRequest.of("dash-dead", "x")));
		// "ok" payloads complete on their first run, so park them in the dead letters by hand first.
		Await.until("the two others are dead", WAIT, () -> deadCount("dash-dead", ids.get(1)) == 1
				&& deadCount("dash-dead", ids.get(4)) == 1);
		Await.until("the ok ones completed", WAIT, () -> this.handlers.handled.containsAll(List.of(ids.get(0))));
		this.jdbc.update("UPDATE taskqueue_dead_task SET payload = '\"ok again\"' WHERE id = ?", ids.get(1));

		assertThat(this.http.act("/taskqueue/tasks/" + ids.get(1) + "/retry", "").body()).contains("Retry dead task");
		assertThat(deadCount("dash-dead", ids.get(1))).isEqualTo(1);
		HttpResponse<String> retried = this.http.confirm("/taskqueue/tasks/" + ids.get(1) + "/retry", "");
		assertThat(this.http.follow(retried).body()).contains("Retried task " + ids.get(1)
				+ ": it is back in queue dash-dead.");
		Await.until("the retried task runs", WAIT, () -> this.handlers.handled.contains(ids.get(1)));

		HttpResponse<String> deleted = this.http.confirm("/taskqueue/tasks/" + ids.get(4) + "/delete", "");
		assertThat(this.http.follow(deleted).body()).contains("Deleted dead task " + ids.get(4) + ".");
		assertThat(deadCount("dash-dead", ids.get(4))).isZero();

		List<UUID> more = this.taskQueue.enqueueAll(List.of(TaskRequest.of("dash-dead", "y"),
				TaskRequest.of("dash-dead", "z"), TaskRequest.of("dash-dead", "w")));
		Await.until("three more dead", WAIT, () -> more.stream().allMatch((id) -> deadCount("dash-dead", id) == 1));
		this.jdbc.update("UPDATE taskqueue_dead_task SET payload = '\"ok\"' WHERE id = ?", more.get(0));
		this.jdbc.update("DELETE FROM taskqueue_dead_task WHERE queue = 'dash-dead' AND NOT id = ANY(?)",
				(Object) more.toArray(UUID[]::new));
		assertThat(this.http.act("/taskqueue/queues/dash-dead/delete-dead", "").body())
			.contains("Delete all 3 dead tasks of queue dash-dead for good?");
		assertThat(this.http.follow(this.http.confirm("/taskqueue/queues/dash-dead/retry-dead", "")).body())
			.contains("Retried 3 dead tasks of queue dash-dead");
		Await.until("the retried ok task runs", WAIT, () -> this.handlers.handled.contains(more.get(0)));
		Await.until("the two others are dead again", WAIT,
				() -> deadCount("dash-dead", more.get(1)) + deadCount("dash-dead", more.get(2)) == 2);
		assertThat(this.http.follow(this.http.confirm("/taskqueue/queues/dash-dead/delete-dead", "")).body())
			.contains("Deleted 2 dead tasks of queue dash-dead.");
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = 'dash-dead'",
				Integer.class)).isZero();
	}

	@Test
	void retryAndDeleteTheDeadLettersTheFilterMatchesAfterAConfirmationThatCountsThem() {
		// A queue no one handles: four timeouts, two others.
		this.jdbc.update("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error)
				SELECT gen_random_uuid(), 'dash-bulk', '{}', 0, 3, now() - interval '1 day', now() - i * interval '1 s',
				       CASE WHEN i <= 4 THEN 'java.net.SocketTimeoutException: Read timed out' ELSE 'boom' END
				FROM generate_series(1, 6) i
				""");
		assertThat(this.http.get("/taskqueue/dead?queue=dash-bulk&error=TIMED").body())
			.contains("Retry all that match").contains("Delete all that match");
		assertThat(this.http.get("/taskqueue/dead").body()).doesNotContain("all that match");

		HttpResponse<String> asked = this.http.act("/taskqueue/dead/retry", "queue=dash-bulk&error=TIMED");
		assertThat(asked.body()).contains("Retry the 4 dead tasks that match (queue dash-bulk, error contains "
				+ "&quot;TIMED&quot;)? They go back to their queues, ready at once");
		// Its confirmation is for this filter only: posted with another, it is refused and changes nothing.
		String confirmation = DashboardHttp.all(asked.body(), "name=\"confirm\" value=\"([^\"]+)\"").get(0);
		assertRefused(List.of(this.http.act("/taskqueue/dead/retry", "queue=dash-bulk&error=boom&confirm="
				+ URLEncoder.encode(confirmation, StandardCharsets.UTF_8))));
		assertThat(deadCount("dash-bulk")).isEqualTo(6);

		assertThat(this.http.follow(this.http.confirm("/taskqueue/dead/retry", "queue=dash-bulk&error=TIMED")).body())
			.contains("Retried 4 dead tasks (queue dash-bulk, error contains &quot;TIMED&quot;): they are back in "
					+ "their queues.");
		assertThat(deadCount("dash-bulk")).isEqualTo(2);
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = 'dash-bulk'",
				Integer.class)).isEqualTo(4);
		String from = this.jdbc.queryForObject("SELECT to_char((now() - interval '1 hour') AT TIME ZONE 'UTC', "
				+ "'YYYY-MM-DD\"T\"HH24:MI')", String.class);
		assertThat(this.http.follow(this.http.confirm("/taskqueue/dead/delete", "queue=dash-bulk&from=" + from))
			.body()).contains("Deleted 2 dead tasks (queue dash-bulk, failed from ");
		assertThat(deadCount("dash-bulk")).isZero();
		// Never every dead letter at once from the dashboard: a filter is needed.
		assertThat(this.http.act("/taskqueue/dead/delete", "").statusCode()).isEqualTo(400);
	}

	@Test
	void anActionPostedFromAnotherSiteOrWithoutTheTokenChangesNothing() {
		// No Spring Security in this application: the dashboard's own token and origin checks are all there is.
		UUID id = this.taskQueue.enqueue(TaskRequest.of("dash-csrf", "x").withDelay(Duration.ofHours(1)));
		// What another site's page can make a browser post: no token (it cannot read one), its own origin.
		List<HttpResponse<String>> refused = new ArrayList<>(List.of(
				this.http.postCrossSite("/taskqueue/queues/dash-csrf/pause", ""),
				this.http.postCrossSite("/taskqueue/queues/dash-csrf/delete-dead", "confirm=yes"),
				this.http.post("/taskqueue/queues/dash-csrf/pause", ""),
				this.http.post("/taskqueue/queues/dash-csrf/pause", "_taskqueue_csrf=wrong"),
				this.http.post("/taskqueue/tasks/" + id + "/cancel", "confirm=yes")));
		assertRefused(refused);
		assertThat(isPaused("dash-csrf")).isFalse();
		String token = this.http.token();
		refused = List.of(
				// Even with the token, another site's request is refused.
				this.http.postCrossSite("/taskqueue/queues/dash-csrf/pause", "_taskqueue_csrf=" + token),
				// A fresh client has a session of its own: another session's token is not valid in it.
				new DashboardHttp(this.port).post("/taskqueue/queues/dash-csrf/pause", "_taskqueue_csrf=" + token),
				// The right token, but the confirmation page skipped: confirm=yes is not a confirmation.
				this.http.post("/taskqueue/tasks/" + id + "/cancel", "_taskqueue_csrf=" + token + "&confirm=yes"),
				this.http.post("/taskqueue/queues/dash-csrf/delete-dead", "_taskqueue_csrf=" + token + "&confirm=yes"));
		assertRefused(refused);
		assertThat(isPaused("dash-csrf")).isFalse();
		assertThat(taskCount(id)).isEqualTo(1);

		// A confirmation is for its own action only: the one minted for another task does not cancel this one.
		UUID other = this.taskQueue.enqueue(TaskRequest.of("dash-csrf", "y").withDelay(Duration.ofHours(1)));
		String otherConfirm = DashboardHttp
			.all(this.http.act("/taskqueue/tasks/" + other + "/cancel", "").body(), "name=\"confirm\" value=\"([^\"]+)\"")
			.get(0);
		assertThat(this.http.act("/taskqueue/tasks/" + id + "/cancel", "confirm=" + otherConfirm).statusCode())
			.isEqualTo(403);
		assertThat(taskCount(id)).isEqualTo(1);

		// The same actions from the dashboard's own pages work.
		assertThat(this.http.act("/taskqueue/queues/dash-csrf/pause", "").statusCode()).isEqualTo(303);
		assertThat(isPaused("dash-csrf")).isTrue();
		assertThat(this.http.confirm("/taskqueue/tasks/" + id + "/cancel", "").statusCode()).isEqualTo(303);
		assertThat(taskCount(id)).isZero();
	}

	@Test
	void noActionIsReachableWithGetAndBadInputIsRefused() {
		UUID id = this.taskQueue.enqueue(TaskRequest.of("dash-get", "x").withDelay(Duration.ofHours(1)));
		for (String path : List.of("/taskqueue/queues/dash-get/pause", "/taskqueue/tasks/" + id + "/cancel",
				"/taskqueue/tasks/" + id + "/delete", "/taskqueue/queues/dash-get/delete-dead")) {
			assertThat(this.http.get(path + "?confirm=yes").statusCode()).as(path).isIn(404, 405);
		}
		assertThat(isPaused("dash-get")).isFalse();
		assertThat(taskCount(id)).isEqualTo(1);
		assertThat(this.http.get("/taskqueue/tasks/not-an-id").statusCode()).isEqualTo(400);
		assertThat(this.http.get("/taskqueue/tasks/not-an-id").body()).contains("task id must be a UUID");
		assertThat(this.http.get("/taskqueue/queues/dash-get?after=nonsense").statusCode()).isEqualTo(400);
		assertThat(this.http.get("/taskqueue/tasks/" + UUID.randomUUID()).statusCode()).isEqualTo(404);
	}

	@Test
	void aCursorOutsidePostgreSqlsTimesIsABadRequestNotAnError() {
		// Well-formed numbers, but a time no timestamp holds: PostgreSQL would fail the statement with a range error.
		this.taskQueue.enqueue(TaskRequest.of("dash-cursor", "x"));
		String id = UUID.randomUUID().toString();
		for (String path : List.of("/taskqueue/queues/dash-cursor?after=0_9223372036854775807_" + id,
				"/taskqueue/queues/dash-cursor?view=scheduled&after=5_-9223372036854775808_" + id,
				"/taskqueue/queues/dash-cursor?view=running&after=0_9223372036854775807_" + id,
				"/taskqueue/dead?after=0_-9223372036854775807_" + id)) {
			HttpResponse<String> response = this.http.get(path);
			assertThat(response.statusCode()).as(path).isEqualTo(400);
			assertThat(response.body()).as(path).contains("after must be a cursor from a &#39;next&#39; link");
		}
	}

	private long minuteCount(String queue, String column) {
		Long sum = this.jdbc.queryForObject("SELECT sum(" + column + ") FROM taskqueue_queue_minute WHERE queue = ?",
				Long.class, queue);
		return (sum != null) ? sum : 0;
	}

	private int deadCount(String queue, UUID id) {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = ? AND id = ?",
				Integer.class, queue, id);
	}

	private int taskCount(UUID id) {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class, id);
	}

	private int deadCount(String queue) {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = ?", Integer.class,
				queue);
	}

	private static void assertRefused(List<HttpResponse<String>> responses) {
		for (HttpResponse<String> response : responses) {
			assertThat(response.statusCode()).as(response.request().uri() + " " + response.body()).isEqualTo(403);
			assertThat(response.body()).contains("Nothing was changed.");
		}
	}

	private boolean isPaused(String queue) {
		return Boolean.TRUE.equals(this.jdbc.queryForObject(
				"SELECT EXISTS (SELECT 1 FROM taskqueue_queue WHERE name = ? AND paused)", Boolean.class, queue));
	}

}
