package dev.taskqueue.internal.dashboard;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.BatchResult;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
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
 * What the dashboard shows and does of ordered keys, queue limits, recurring schedules and batches, over HTTP on a
 * random port against a real PostgreSQL: "why isn't my task running", the held tasks one page at a time, pause,
 * resume and trigger of a schedule (checked in the database), and a batch's progress.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true",
				"taskqueue.dashboard.read-only=false", "taskqueue.worker.poll-interval=50ms",
				"taskqueue.worker.heartbeat-interval=200ms", "taskqueue.queues.dash-ok.rate-limit.limit=1",
				"taskqueue.queues.dash-ok.rate-limit.period=1h", "taskqueue.schedules.dash-yearly.cron=0 0 3 1 1 *",
				"taskqueue.schedules.dash-yearly.queue=dash-dead",
				"taskqueue.schedules.dash-yearly.payload=\"<i>yearly</i>\"" })
class DashboardFeaturesIntegrationTests {

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
	private TaskQueueOperations operations;

	@Autowired
	private DashboardTestApplication.Handlers handlers;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void tasksHeldBehindTheirOrderingKeyAreCountedAndListedInKeyOrder() {
		DashboardHttp http = new DashboardHttp(this.port);
		List<TaskRequest> requests = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			requests.add(TaskRequest.of("dash-keyed", "task " + i).withOrderingKey((i % 2 == 0) ? "<b>" : "a&b"));
		}
		this.taskQueue.enqueueAll(requests);
		String overview = http.get("/taskqueue").body();
		// No handler for dash-keyed: each key's head is ready, the 58 others wait for it.
		assertThat(overview).contains("<a href=\"/taskqueue/queues/dash-keyed?view=held\">58</a> "
				+ "<span class=\"reason\"");
		assertThat(overview).contains("(key 58)</span>");
		List<String> heldOrder = this.jdbc.queryForList("SELECT id::text FROM taskqueue_task WHERE queue = 'dash-keyed'"
				+ " AND claimed_by = '00000000-0000-0000-0000-000000000000' ORDER BY ordering_key, ordering_seq",
				String.class);
		assertThat(heldOrder).hasSize(58);
		List<String> shown = new ArrayList<>();
		String path = "/taskqueue/queues/dash-keyed?view=held";
		for (int page = 0; page < 2; page++) {
			String html = http.get(path).body();
			// "<b>" sorts before "a&b": the first page holds both keys, escaped, and the cursor carries the key.
			assertThat(html).doesNotContain("<b>").contains("a&amp;b").contains("held (58)");
			if (page == 0) {
				assertThat(html).contains("<td class=\"wide\" data-label=\"ordering key\">&lt;b&gt;</td>");
			}
			shown.addAll(DashboardHttp.taskIds(html));
			List<String> next = DashboardHttp.all(html, "href=\"([^\"]+)\" rel=\"next\"");
			assertThat(next).hasSize((page == 0) ? 1 : 0);
			path = (page == 0) ? next.get(0).replace("&amp;", "&") : path;
		}
		assertThat(shown).containsExactlyElementsOf(heldOrder);
		assertThat(DashboardHttp.taskIds(http.get("/taskqueue/queues/dash-keyed").body())).hasSize(2);
		assertThat(http.get("/taskqueue/queues/dash-keyed?view=running").body()).contains("No running task.")
			.contains("running (0)");
		String task = http.get("/taskqueue/tasks/" + heldOrder.get(0)).body();
		assertThat(task).contains("held behind an earlier task of its ordering key").contains("<dd>&lt;b&gt;</dd>")
			.contains("Cancel this task");
	}

	@Test
	void tasksAQueueLimitHoldsBackAreCountedWithTheLimit() {
		DashboardHttp http = new DashboardHttp(this.port);
		List<UUID> ids = this.taskQueue.enqueueAll(List.of(TaskRequest.of("dash-ok", "1"),
				TaskRequest.of("dash-ok", "2"), TaskRequest.of("dash-ok", "3")));
		// One start an hour: the first task runs, the two others wait for the next window.
		Await.until("one task ran", WAIT, () -> this.handlers.handled.stream().filter(ids::contains).count() == 1);
		assertThat(http.get("/taskqueue").body()).containsPattern(
				"dash-ok</a></td><td data-label=\"state\">active</td><td class=\"num\" data-label=\"ready\">2</td>"
						+ "<td class=\"num\" data-label=\"scheduled\">0</td><td class=\"num\" data-label=\"running\">0</td>"
						+ "<td class=\"num\" data-label=\"held back\">2 <span class=\"reason\"[^>]*>\\(rate 2\\)</span>");
		assertThat(http.get("/taskqueue/queues/dash-ok").body())
			.contains("Limits: rate 1 per 1h (1 started in this window) · held back now: 2, waiting for rate");
	}

	@Test
	void schedulesAreListedAndPausedResumedAndTriggered() {
		DashboardHttp http = new DashboardHttp(this.port);
		String overview = http.get("/taskqueue").body();
		assertThat(overview).contains("<h2>Recurring schedules</h2>").contains("<td data-label=\"schedule\">dash-yearly</td>")
			.contains("<code>cron 0 0 3 1 1 *").contains("never");

		HttpResponse<String> paused = http.act("/taskqueue/schedules/pause", "name=dash-yearly");
		assertThat(paused.statusCode()).isEqualTo(303);
		assertThat(http.follow(paused).body()).contains("Paused schedule dash-yearly");
		assertThat(schedule("paused")).isEqualTo("true");

		HttpResponse<String> resumed = http.act("/taskqueue/schedules/resume", "name=dash-yearly");
		assertThat(http.follow(resumed).body()).contains("Resumed schedule dash-yearly");
		assertThat(schedule("paused")).isEqualTo("false");

		HttpResponse<String> asked = http.act("/taskqueue/schedules/trigger", "name=dash-yearly");
		assertThat(asked.statusCode()).isEqualTo(200);
		assertThat(asked.body()).contains("Trigger schedule dash-yearly now?")
			.contains("name=\"name\" value=\"dash-yearly\"");
		assertThat(schedule("ticks")).isEqualTo("0");
		HttpResponse<String> triggered = http.confirm("/taskqueue/schedules/trigger", "name=dash-yearly");
		String task = schedule("last_task_id");
		assertThat(http.follow(triggered).body()).contains("Triggered schedule dash-yearly: task " + task);
		assertThat(schedule("ticks")).isEqualTo("1");
		// Its handler refuses the payload: the task dies, and the overview says so, linking to it.
		Await.until("the triggered task is dead", WAIT, () -> this.jdbc.queryForObject(
				"SELECT count(*) FROM taskqueue_dead_task WHERE id = ?::uuid", Integer.class, task) == 1);
		assertThat(http.get("/taskqueue").body()).contains("<a href=\"/taskqueue/tasks/" + task + "\" class=\"error\">dead</a>");
		assertThat(http.get("/taskqueue/tasks/" + task).body()).doesNotContain("<i>").contains("&lt;i&gt;yearly");

		assertThat(http.follow(http.act("/taskqueue/schedules/pause", "name=dash-none")).body())
			.contains("No schedule dash-none to pause.");
		assertThat(http.act("/taskqueue/schedules/pause", "name=%3Cb%3E").statusCode()).isEqualTo(400);
		assertThat(http.get("/taskqueue/schedules/pause?name=dash-yearly").statusCode()).isIn(404, 405);
	}

	@Test
	void batchesShowTheirProgress() {
		BatchResult batch = this.taskQueue.enqueueBatch(List.of(TaskRequest.of("dash-batch", "a"),
				TaskRequest.of("dash-batch", "b"), TaskRequest.of("dash-dead", "c")), TaskRequest.of("dash-batch", "then"));
		Await.until("one task of the batch is dead", WAIT, () -> this.jdbc.queryForObject(
				"SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class, batch.taskIds().get(2)) == 1);
		assertThat(this.operations.cancel(batch.taskIds().get(0))).isTrue();
		String html = new DashboardHttp(this.port).get("/taskqueue").body();
		// total 3, completed 1 (the cancelled one), dead 1, remaining 1
		assertThat(html).contains("<h2>Batches</h2>").containsPattern(batch.id() + "</span></td><td data-label=\"state\">open</td>"
				+ "<td data-label=\"created\"><time datetime=\"[-0-9T:]+Z\" title=\"[-0-9 :]+Z\">[^<]+</time></td>"
				+ "<td class=\"num\" data-label=\"total\">3</td><td class=\"num\" data-label=\"completed\">1</td>"
				+ "<td class=\"num\" data-label=\"dead\">1</td><td class=\"num\" data-label=\"remaining\">1</td>");
	}

	@Test
	void aRunningTaskShowsItsProgressAndACompletedOneItsResultEscaped() {
		DashboardHttp http = new DashboardHttp(this.port);
		UUID id = this.taskQueue.enqueue("dash-progress", "p");
		Await.until("the progress is written", WAIT, () -> this.operations.progress(id).isPresent());
		String running = http.get("/taskqueue/tasks/" + id).body();
		assertThat(running).contains("<dt>progress</dt><dd><progress value=\"50\" max=\"100\">50%</progress> 50% "
				+ "&lt;b&gt;half&lt;/b&gt; (").doesNotContain("<b>half");
		this.handlers.progressing.set(false);
		Await.until("the task completed", WAIT, () -> this.operations.result(id, Object.class).isPresent());
		HttpResponse<String> completed = http.get("/taskqueue/tasks/" + id);
		assertThat(completed.statusCode()).isEqualTo(200);
		assertThat(completed.body()).contains("Completed task " + id).contains("<h2>Result</h2>")
			.contains("&lt;i&gt;done&lt;/i&gt;")
			.doesNotContain("<i>done");
		assertThat(http.get("/taskqueue/tasks/" + UUID.randomUUID()).statusCode()).isEqualTo(404);
	}

	private String schedule(String column) {
		return this.jdbc.queryForObject("SELECT " + column + "::text FROM taskqueue_schedule WHERE name = 'dash-yearly'",
				String.class);
	}

}
