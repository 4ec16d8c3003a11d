package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.internal.dashboard.QueueMinuteRepository.QueueCount;
import dev.taskqueue.internal.jdbc.TaskTables;
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
 * The trends (docs/dashboard.md#trends) over HTTP against a real PostgreSQL: the recorder's sample of each queue's
 * ready tasks, a queue's charts of its last hour and day from minutes written here, and the overview's "falling
 * behind". No queue here has a handler, so its tasks stay ready.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true", "taskqueue.worker.poll-interval=50ms",
				"taskqueue.worker.heartbeat-interval=200ms" })
class DashboardTrendsIntegrationTests {

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
	private ThroughputRecorder recorder;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private TaskTables tables;

	@Test
	void eachMinuteKeepsTheHighestSampleOfAQueuesReadyTasksAndTheirOldestWait() {
		Instant fiveMinutesAgo = Instant.now().minus(Duration.ofMinutes(5));
		List<TaskRequest> tasks = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			tasks.add(TaskRequest.of("trend-depth", "task " + i).withRunAt(fiveMinutesAgo));
		}
		tasks.add(TaskRequest.of("trend-depth", "later").withDelay(Duration.ofHours(1)));
		this.taskQueue.enqueueAll(tasks);
		this.recorder.sample();
		// The recorder's own thread samples at each new minute too, so a minute may have begun since: the highest.
		assertThat(this.jdbc.queryForObject("SELECT max(ready) FROM taskqueue_queue_minute WHERE queue = 'trend-depth'",
				Long.class)).isEqualTo(7);
		assertThat(this.jdbc.queryForObject(
				"SELECT max(oldest_ready_seconds) FROM taskqueue_queue_minute WHERE queue = 'trend-depth'", Long.class))
			.isBetween(299L, 330L);

		// Counts without a sample keep the minute's sample; a lower sample does not replace a higher one.
		QueueMinuteRepository minutes = new QueueMinuteRepository(this.jdbc.getDataSource(), this.tables);
		minutes.add(List.of(new QueueCount("trend-kept", 1, 0, 40L, 90L)));
		minutes.add(List.of(new QueueCount("trend-kept", 2, 1)));
		minutes.add(List.of(new QueueCount("trend-kept", 0, 0, 30L, 120L)));
		assertThat(this.jdbc.queryForList("SELECT concat_ws(' ', sum(completed), sum(failed), max(ready), "
				+ "max(oldest_ready_seconds), count(*) FILTER (WHERE ready IS NULL)) FROM taskqueue_queue_minute "
				+ "WHERE queue = 'trend-kept'", String.class)).containsExactly("3 1 40 120 0");
	}

	@Test
	void aQueuesPageChartsItsLastHourByMinuteAndItsLastDayByQuarterHour() throws InterruptedException {
		awayFromTheEndOfAMinute();
		// Two hours of minutes: 2 completed each, 1 failed every tenth, ready 500 + k and 30 + k seconds k minutes ago.
		this.jdbc.update("INSERT INTO taskqueue_queue_minute (queue, minute, completed, failed, ready, "
				+ "oldest_ready_seconds) SELECT 'trend-page', date_trunc('minute', now()) - k * interval '1 minute', 2, "
				+ "CASE WHEN k % 10 = 0 THEN 1 ELSE 0 END, 500 + k, 30 + k FROM generate_series(0, 119) AS k");
		String html = new DashboardHttp(this.port).get("/taskqueue/queues/trend-page").body();

		assertThat(html).contains("<h3>Last hour, per minute</h3>").contains("<h3>Last day, per 15 minutes</h3>");
		// The hour: 60 minutes of 2 completed, 6 failed; newest sample 500 ready, 30 s; the highest 559 and 89 s.
		assertThat(caption(html, 0)).containsExactly("completed 120", "failed 6", "ready now 500",
				"oldest ready now 30s");
		assertThat(chart(html, "Ready, last hour, per minute; at most 559")).hasSize(60)
			.startsWith("Ready, 59 min ago: 559")
			.endsWith("Ready, this minute: 500");
		assertThat(chart(html, "Failed, last hour, per minute; at most 1")).hasSize(60).filteredOn((bar) -> bar.endsWith(": 1"))
			.hasSize(6);
		// The day: 96 bars of 15 minutes, 8 of them with minutes; sums per bar for attempts, the highest sample else.
		assertThat(caption(html, 1)).containsExactly("completed 240", "failed 12", "ready now 514",
				"oldest ready now 44s");
		assertThat(chart(html, "Ready, last day, per 15 minutes; at most 619")).containsExactly(
				"Ready, 2h to 1h 45m ago: 619", "Ready, 1h 45m to 1h 30m ago: 604", "Ready, 1h 30m to 1h 15m ago: 589",
				"Ready, 1h 15m to 1h ago: 574", "Ready, 1h to 45 min ago: 559", "Ready, 45 min to 30 min ago: 544",
				"Ready, 30 min to 15 min ago: 529", "Ready, the last 15 min: 514");
		assertThat(chart(html, "Completed, last day, per 15 minutes; at most 30")).hasSize(96)
			.filteredOn((bar) -> bar.endsWith(": 30"))
			.hasSize(8);
		assertThat(chart(html, "Oldest ready, last day, per 15 minutes; at most 2m 29s")).last()
			.isEqualTo("Oldest ready, the last 15 min: 44s");
		assertThat(html).doesNotContain("falling behind");

		String empty = new DashboardHttp(this.port).get("/taskqueue/queues/trend-none").body();
		assertThat(caption(empty, 0)).containsExactly("completed 0", "failed 0", "ready not sampled",
				"oldest ready not sampled");
		assertThat(chart(empty, "Ready, last hour, per minute; no sample")).isEmpty();
		assertThat(chart(empty, "Completed, last hour, per minute; at most 0")).hasSize(60);
	}

	@Test
	void theOverviewSaysWhichQueuesFallBehind() {
		// Ten minutes and more ago: 2 ready, 5 s oldest for the one; 50 ready, 900 s for the other.
		this.jdbc.update("INSERT INTO taskqueue_queue_minute (queue, minute, ready, oldest_ready_seconds) "
				+ "SELECT q, date_trunc('minute', now()) - k * interval '1 minute', r, s FROM generate_series(10, 15) AS k, "
				+ "(VALUES ('trend-behind', 2, 5), ('trend-draining', 50, 900)) AS v(q, r, s)");
		// Now: 5 ready in each, the oldest waiting 5 minutes.
		Instant fiveMinutesAgo = Instant.now().minus(Duration.ofMinutes(5));
		List<TaskRequest> tasks = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			tasks.add(TaskRequest.of("trend-behind", "task " + i).withRunAt(fiveMinutesAgo));
			tasks.add(TaskRequest.of("trend-draining", "task " + i).withRunAt(fiveMinutesAgo));
		}
		this.taskQueue.enqueueAll(tasks);
		this.recorder.sample();

		DashboardHttp http = new DashboardHttp(this.port);
		String overview = http.get("/taskqueue").body();
		// No handler here for these queues: their state says so, and then whether they fall behind.
		assertThat(DashboardHttp.all(overview, "queues/([a-z-]+)\">[^<]+</a></td><td data-label=\"state\">"
				+ "(?:(?!</td>).)*<span class=\"behind\"")).containsExactly("trend-behind");
		assertThat(DashboardHttp.all(overview, "queues/trend-draining\">trend-draining</a></td>"
				+ "<td data-label=\"state\">((?:(?!</td>).)*)</td>"))
			.containsExactly("<span class=\"unhandled\">no live instance handles this queue</span>");
		assertThat(http.get("/taskqueue/queues/trend-behind").body())
			.contains("<summary>Trends <span class=\"behind\">falling behind</span></summary>");
		assertThat(http.get("/taskqueue/queues/trend-draining").body()).doesNotContain("falling behind");
	}

	/** The tooltips of the bars of the chart labelled {@code label}, oldest first. */
	private static List<String> chart(String html, String label) {
		int start = html.indexOf("aria-label=\"" + label + "\"");
		assertThat(start).as("a chart labelled " + label).isNotNegative();
		String svg = html.substring(start, html.indexOf("</svg>", start));
		return DashboardHttp.all(svg, "<rect [^>]*><title>([^<]+)</title></rect>");
	}

	/** The captions of the charts of the {@code row}th span (0 the hour, 1 the day), as text. */
	private static List<String> caption(String html, int row) {
		String[] rows = html.split("<div class=\"trend-row\">");
		String span = rows[row + 1];
		return DashboardHttp.all(span, "<figcaption>([^<]+<span class=\"total\">[^<]+)</span></figcaption>")
			.stream()
			.map((caption) -> caption.replace("<span class=\"total\">", ""))
			.toList();
	}

	/** Waits for the database clock to leave the last ten seconds of its minute, so the minutes written stay put. */
	private void awayFromTheEndOfAMinute() throws InterruptedException {
		while (this.jdbc.queryForObject("SELECT extract(second FROM now())", Double.class) > 48) {
			Thread.sleep(500);
		}
	}

}
