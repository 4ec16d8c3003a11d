package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.taskqueue.BatchResult;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in a real browser ({@link DashboardBrowser}): opens the overview, pauses a queue, opens a dead letter
 * and retries it, checking the page and the database after each step; lays every page out at 1,400 and 800 pixels
 * without widening the page, with relative times; and acts with the keyboard alone. Screenshots go to
 * {@code target/dashboard-screenshots/}. Each test uses queues of its own, so they run in any order.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true",
				"taskqueue.dashboard.read-only=false", "taskqueue.dashboard.refresh-interval=10m",
				"taskqueue.worker.poll-interval=50ms", "taskqueue.worker.heartbeat-interval=200ms",
				"spring.application.name=orders-service", "taskqueue.queues.reports.rate-limit.limit=100",
				"taskqueue.queues.reports.rate-limit.period=1m", "taskqueue.schedules.nightly-cleanup.cron=0 0 2 * * *",
				"taskqueue.schedules.nightly-cleanup.queue=dash-ok",
				"taskqueue.schedules.nightly-cleanup.payload=\"nightly-cleanup\"" })
class DashboardBrowserIntegrationTests {

	private static final Duration WAIT = DashboardBrowser.WAIT;

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

	private DashboardBrowser browser;

	@BeforeEach
	void openBrowser() {
		this.browser = DashboardBrowser.open(1400);
		this.handlers.refusing.set(true);
	}

	@AfterEach
	void closeBrowser() {
		if (this.browser != null) {
			this.browser.close();
		}
	}

	@Test
	void overviewPauseAndRetryADeadLetter() {
		UUID dead = seedData();

		// 1. The overview lists the queues with their counts, charts and the live instance.
		this.browser.driver.get(url("/taskqueue"));
		assertThat(this.browser.driver.getTitle()).isEqualTo("Overview · TaskQueue");
		assertThat(cell("reports", 2)).isEqualTo("250");
		assertThat(this.browser.driver.findElements(By.cssSelector("svg.spark.ok rect"))).isNotEmpty();
		assertThat(this.browser.driver.findElement(By.tagName("body")).getText()).contains("orders-service")
			.contains("nightly-cleanup");
		assertThat(cell("invoices", 5)).isEqualTo("2 (key 2)");
		assertThat(cell("reports", 5)).isEqualTo("150 (rate 150)");
		this.browser.screenshot("1-overview");

		// 2. Pause a queue: the page says so, and the database has it paused.
		row("reports").findElement(By.xpath(".//button[text()='Pause']")).click();
		assertThat(this.browser.flash()).startsWith("Paused queue reports");
		assertThat(cell("reports", 1)).isEqualTo("paused");
		assertThat(this.jdbc.queryForObject("SELECT paused FROM taskqueue_queue WHERE name = 'reports'", Boolean.class))
			.isTrue();
		this.browser.screenshot("2-paused");

		// 3. Open the dead letter from the dead-letter list: its whole stack trace is there.
		this.browser.driver.findElement(By.linkText("Dead letters")).click();
		this.browser.driver.findElement(By.linkText(dead.toString())).click();
		assertThat(this.browser.driver.getTitle()).isEqualTo("Dead task " + dead + " · TaskQueue");
		assertThat(this.browser.driver.findElement(By.cssSelector("pre.error")).getText())
			.startsWith("dev.taskqueue.NonRetryableTaskException: refused <script>")
			.contains("at dev.taskqueue.internal.dashboard.DashboardTestApplication$Handlers.dead");
		this.browser.screenshot("3-dead-letter");

		// 4. Retry it: confirm, then the dead-letter list says what happened and the task runs.
		this.handlers.refusing.set(false);
		this.browser.driver.findElement(By.xpath("//button[text()='Retry']")).click();
		// A form's submission may still be on its way when click() returns.
		new WebDriverWait(this.browser.driver, WAIT).until(ExpectedConditions.titleIs("Confirm · TaskQueue"));
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class,
				dead)).isEqualTo(1);
		this.browser.screenshot("4-confirm");
		this.browser.driver.findElement(By.id("confirm")).click();
		assertThat(this.browser.flash())
			.isEqualTo("Retried task " + dead + ": it is back in queue dash-dead.");
		Await.until("the retried task runs", WAIT, () -> this.handlers.handled.contains(dead));
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class,
				dead)).isZero();
		this.browser.screenshot("5-retried");
	}

	@Test
	void everyPageFitsAt1400And800PixelsAndOnAPhoneAndShowsRelativeTimes() {
		String key = "customer-" + "0123456789".repeat(8);
		String payload = "{\"order\":\"" + "A1B2C3D4E5".repeat(20) + "\"}";
		UUID waiting = this.taskQueue.enqueue(TaskRequest.of("dash-people", payload).withUniqueKey(key));
		this.taskQueue.enqueue(TaskRequest.of("dash-people", "{\"n\":1}").withOrderingKey("invoices-" + key));
		this.taskQueue.enqueue(TaskRequest.of("dash-people", "{\"n\":2}").withOrderingKey("invoices-" + key));
		UUID later = this.taskQueue.enqueue(TaskRequest.of("dash-people", payload).withDelay(Duration.ofMinutes(10)));
		UUID dead = this.taskQueue.enqueue("dash-dead", "x".repeat(300));
		Await.until("the task is dead", WAIT, () -> this.jdbc
			.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class, dead) == 1);
		Map<String, String> pages = new LinkedHashMap<>();
		pages.put("overview", "/taskqueue");
		pages.put("queue", "/taskqueue/queues/dash-people");
		pages.put("scheduled", "/taskqueue/queues/dash-people?view=scheduled");
		pages.put("held", "/taskqueue/queues/dash-people?view=held");
		pages.put("dead-letters", "/taskqueue/dead");
		pages.put("task", "/taskqueue/tasks/" + waiting);
		pages.put("dead-task", "/taskqueue/tasks/" + dead);
		pages.put("find", "/taskqueue/search?q=invoices-" + key);
		// 390: a phone's width.
		for (int width : new int[] { 1400, 800, 390 }) {
			this.browser.width(width);
			assertThat(this.browser.viewportWidth()).isEqualTo(width);
			for (Map.Entry<String, String> page : pages.entrySet()) {
				this.browser.driver.get(url(page.getValue()));
				assertThat(this.browser.driver.getTitle()).endsWith("· TaskQueue");
				// Long keys, payloads and ids wrap or scroll within their table: the page is as wide as the window.
				assertThat(this.browser.pageWidth()).as(page.getKey() + " at " + width + " px")
					.isLessThanOrEqualTo(this.browser.viewportWidth());
				this.browser.screenshot("people-" + page.getKey() + "-" + width);
			}
			// Below 960 pixels a row of a table is a card of its cells, each under its header.
			this.browser.driver.get(url("/taskqueue/dead"));
			WebElement row = this.browser.driver.findElement(By.cssSelector("tbody tr"));
			assertThat(row.getCssValue("display")).isEqualTo((width < 960) ? "grid" : "table-row");
		}

		// The due time of the scheduled task: relative, with the exact UTC time on hover and for machines.
		this.browser.driver.get(url("/taskqueue/queues/dash-people?view=scheduled"));
		WebElement due = this.browser.driver.findElement(By.xpath("//tr[.//a[text()='" + later + "']]//time"));
		String runAt = this.jdbc.queryForObject(
				"SELECT to_char(run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM taskqueue_task WHERE id = ?",
				String.class, later);
		assertThat(due.getText()).matches("in (9|10) min");
		assertThat(due.getAttribute("title")).isEqualTo(runAt + "Z");
		assertThat(due.getAttribute("datetime")).isEqualTo(runAt.replace(' ', 'T') + "Z");
		this.browser.driver.get(url("/taskqueue/dead"));
		assertThat(this.browser.driver.findElement(By.xpath("//tr[.//a[text()='" + dead + "']]//time")).getText())
			.matches("just now|[0-9]+ s ago|1 min ago");
	}

	@Test
	void everyActionIsReachedAndDoneWithTheKeyboard() {
		UUID task = this.taskQueue.enqueue("dash-keys", "{\"by\":\"keyboard\"}");
		this.browser.driver.get(url("/taskqueue"));

		// The first Tab offers to skip the menu, and shows where the focus is.
		tab();
		WebElement skip = this.browser.driver.switchTo().activeElement();
		assertThat(skip.getText()).isEqualTo("Skip to content");
		assertThat(skip.getRect().getX()).isGreaterThanOrEqualTo(0);
		assertThat(skip.getCssValue("outline-style")).isEqualTo("solid");

		// Tab to the queue's Pause button, which shows its focus, and press Enter.
		WebElement pause = row("dash-keys").findElement(By.xpath(".//button[text()='Pause']"));
		tabTo(pause);
		assertThat(pause.getCssValue("outline-style")).isEqualTo("solid");
		assertThat(pause.getCssValue("outline-width")).isEqualTo("3px");
		this.browser.screenshot("people-keyboard-focus-1400");
		new Actions(this.browser.driver).sendKeys(Keys.ENTER).perform();
		assertThat(this.browser.flash()).startsWith("Paused queue dash-keys");
		assertThat(this.jdbc.queryForObject("SELECT paused FROM taskqueue_queue WHERE name = 'dash-keys'",
				Boolean.class)).isTrue();

		// Cancel the waiting task: its button, then the confirmation's, with Tab and Enter only.
		this.browser.driver.get(url("/taskqueue/queues/dash-keys"));
		tabTo(this.browser.driver.findElement(By.xpath("//button[text()='Cancel']")));
		new Actions(this.browser.driver).sendKeys(Keys.ENTER).perform();
		new WebDriverWait(this.browser.driver, WAIT).until(ExpectedConditions.titleIs("Confirm · TaskQueue"));
		tabTo(this.browser.driver.findElement(By.id("confirm")));
		new Actions(this.browser.driver).sendKeys(Keys.ENTER).perform();
		assertThat(this.browser.flash()).isEqualTo("Cancelled task " + task + ".");
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class, task))
			.isZero();
	}

	@Test
	void theBoxOfEveryPageFindsATaskByIdKeyOrBatch() {
		UUID keyed = this.taskQueue.enqueue(TaskRequest.of("dash-find", "{}").withUniqueKey("order-4711"));
		this.taskQueue.enqueue(TaskRequest.of("dash-find", "{\"n\":1}").withOrderingKey("customer-7"));
		this.taskQueue.enqueue(TaskRequest.of("dash-find", "{\"n\":2}").withOrderingKey("customer-7"));
		BatchResult batch = this.taskQueue.enqueueBatch(
				List.of(TaskRequest.of("dash-find", "{\"part\":1}"), TaskRequest.of("dash-dead", "in a batch")),
				TaskRequest.of("dash-find", "{\"then\":true}"));
		UUID dead = batch.taskIds().get(1);
		Await.until("the batch's second task is dead", WAIT, () -> this.jdbc
			.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class, dead) == 1);
		for (int width : new int[] { 1400, 800 }) {
			this.browser.width(width);
			// From the overview, by unique key.
			this.browser.driver.get(url("/taskqueue"));
			find("order-4711");
			assertThat(this.browser.driver.getTitle()).isEqualTo("Find order-4711 · TaskQueue");
			assertThat(foundRows()).containsExactly(keyed + " dash-find ready unique key order-4711");
			assertThat(this.browser.driver.findElement(By.name("q")).getAttribute("value")).isEqualTo("order-4711");
			this.browser.screenshot("people-find-key-" + width);
			// From the dead letters, by ordering key: the head, then the task held behind it.
			this.browser.driver.get(url("/taskqueue/dead"));
			find("customer-7");
			assertThat(foundRows()).hasSize(2).satisfiesExactly(
					(row) -> assertThat(row).endsWith("dash-find ready ordering key customer-7"),
					(row) -> assertThat(row).endsWith("dash-find held ordering key customer-7"));
			// From a task's page, by batch id: its waiting task and its dead letter.
			this.browser.driver.get(url("/taskqueue/tasks/" + keyed));
			find(batch.id().toString());
			assertThat(foundRows()).containsExactlyInAnyOrder(batch.taskIds().get(0) + " dash-find ready batch",
					dead + " dash-dead dead batch");
			assertThat(this.browser.pageWidth()).isLessThanOrEqualTo(this.browser.viewportWidth());
			this.browser.screenshot("people-find-batch-" + width);
			// By id: the dead letter, one click from its page.
			find(dead.toString());
			this.browser.driver.findElement(By.linkText(dead.toString())).click();
			assertThat(this.browser.driver.getTitle()).isEqualTo("Dead task " + dead + " · TaskQueue");
		}
	}

	@Test
	void retryEveryDeadLetterTheFilterMatchesAfterAConfirmationThatCountsThem() {
		for (int width : new int[] { 1400, 800 }) {
			this.browser.width(width);
			String queue = "dash-bulk-" + width;
			this.jdbc.update("""
					INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at,
					                                 error)
					SELECT gen_random_uuid(), ?, jsonb_build_object('order', i), 0, 3, now() - interval '1 hour',
					       now() - i * interval '1 minute', CASE WHEN i <= 8
					           THEN 'java.net.SocketTimeoutException: Read timed out'
					                || repeat(E'\n\tat x.Y.z(Y.java:1)', 5)
					           ELSE 'java.lang.IllegalStateException: boom' END
					FROM generate_series(1, 12) i
					""", queue);
			this.browser.driver.get(url("/taskqueue/dead"));
			this.browser.driver.findElement(By.name("queue")).sendKeys(queue);
			this.browser.driver.findElement(By.name("error")).sendKeys("timed out", Keys.ENTER);
			new WebDriverWait(this.browser.driver, WAIT).until(ExpectedConditions.titleIs("Dead letters of " + queue
					+ " · TaskQueue"));
			assertThat(this.browser.driver.findElements(By.cssSelector("main tbody tr"))).hasSize(8);
			assertThat(this.browser.pageWidth()).isLessThanOrEqualTo(this.browser.viewportWidth());
			this.browser.screenshot("people-bulk-filtered-" + width);

			this.browser.driver.findElement(By.xpath("//button[text()='Retry all that match']")).click();
			new WebDriverWait(this.browser.driver, WAIT).until(ExpectedConditions.titleIs("Confirm · TaskQueue"));
			assertThat(this.browser.driver.findElement(By.cssSelector("main p")).getText()).isEqualTo("Retry the 8 "
					+ "dead tasks that match (queue " + queue + ", error contains \"timed out\")? They go back to "
					+ "their queues, ready at once, and their handlers run again.");
			this.browser.screenshot("people-bulk-confirm-" + width);
			this.browser.driver.findElement(By.id("confirm")).click();
			assertThat(this.browser.flash()).isEqualTo("Retried 8 dead tasks (queue " + queue
					+ ", error contains \"timed out\"): they are back in their queues.");
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = ?",
					Integer.class, queue)).isEqualTo(4);
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = ?",
					Integer.class, queue)).isEqualTo(8);
			// Back on the filtered list: nothing matches any more.
			assertThat(this.browser.driver.findElement(By.cssSelector("p.empty")).getText())
				.isEqualTo("No dead letters match.");
		}
	}

	@Test
	void retryEveryWaitingTaskTheFilterMatchesButNotTheRunningOne() {
		UUID session = this.jdbc.queryForObject("SELECT id FROM taskqueue_session LIMIT 1", UUID.class);
		for (int width : new int[] { 1400, 800 }) {
			this.browser.width(width);
			String queue = "dash-wait-" + width;
			// Six tasks waiting to be retried after a timeout, three after another error, due in an hour; one running
			// task with a timeout, claimed by this instance's session (no handler here takes the queue). Task i last
			// failed i minutes ago (its attempt log's last entry), and all were enqueued a day ago.
			this.jdbc.update("""
					INSERT INTO taskqueue_task (id, queue, payload, run_at, enqueued_at, attempt, last_error,
					                            claimed_by, claimed_at, attempt_log)
					SELECT gen_random_uuid(), ?, jsonb_build_object('order', i), now() + interval '1 hour',
					       now() - interval '1 day', 2, CASE WHEN i <= 7
					           THEN 'java.net.SocketTimeoutException: Read timed out' || repeat(E'\n\tat x.Y.z(Y.java:1)', 5)
					           ELSE 'java.lang.IllegalStateException: boom' END,
					       CASE WHEN i = 7 THEN ? END, CASE WHEN i = 7 THEN now() END,
					       jsonb_build_array(jsonb_build_object('attempt', 1, 'outcome', 'failed',
					           'ended', now() - i * interval '1 minute'))
					FROM generate_series(1, 10) i
					""", queue, session);
			// Failed between 9.5 and 4.5 minutes ago: tasks 5 to 9, of which 7 runs.
			String[] window = this.jdbc.queryForObject("SELECT to_char((now() - interval '570 seconds') AT TIME ZONE "
					+ "'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || ' ' || to_char((now() - interval '270 seconds') AT TIME "
					+ "ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS')", String.class).split(" ");
			this.browser.driver.get(url("/taskqueue/queues/" + queue + "?from=" + window[0] + "&before=" + window[1]));
			assertThat(this.browser.driver.findElement(By.cssSelector("main div.bulk")).getText())
				.startsWith("4 waiting tasks match.")
				.endsWith("1 running task matches: a bulk action leaves it alone.");
			assertThat(this.browser.driver.findElements(By.cssSelector("main tbody tr"))).hasSize(4);
			this.browser.driver.get(url("/taskqueue/queues/" + queue));
			this.browser.driver.findElement(By.linkText("Filter the waiting tasks")).click();
			this.browser.driver.findElement(By.name("error")).sendKeys("timed out", Keys.ENTER);
			new WebDriverWait(this.browser.driver, WAIT)
				.until(ExpectedConditions.presenceOfElementLocated(By.xpath("//button[text()='Retry 6']")));
			assertThat(this.browser.driver.findElements(By.cssSelector("main tbody tr"))).hasSize(6);
			assertThat(this.browser.driver.findElement(By.cssSelector("main div.bulk")).getText())
				.startsWith("6 waiting tasks match.")
				.endsWith("1 running task matches: a bulk action leaves it alone.");
			assertThat(this.browser.pageWidth()).isLessThanOrEqualTo(this.browser.viewportWidth());
			this.browser.screenshot("people-bulk-waiting-filtered-" + width);

			this.browser.driver.findElement(By.xpath("//button[text()='Retry 6']")).click();
			new WebDriverWait(this.browser.driver, WAIT).until(ExpectedConditions.titleIs("Confirm · TaskQueue"));
			assertThat(this.browser.driver.findElement(By.cssSelector("main p")).getText()).isEqualTo("Make the 6 "
					+ "waiting tasks that match (queue " + queue + ", error contains \"timed out\") due now? Each runs "
					+ "at once, with the attempts it has left. The running task that matches is left alone.");
			this.browser.screenshot("people-bulk-waiting-confirm-" + width);
			this.browser.driver.findElement(By.id("confirm")).click();
			assertThat(this.browser.flash()).isEqualTo("Made 6 waiting tasks due now (queue " + queue
					+ ", error contains \"timed out\"). The running task that matches is left alone.");
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = ? AND "
					+ "run_at <= now() AND claimed_by IS NULL AND attempt = 2", Integer.class, queue)).isEqualTo(6);
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = ? AND "
					+ "run_at > now() AND claimed_by IS NULL", Integer.class, queue)).isEqualTo(3);
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = ? AND "
					+ "claimed_by IS NOT NULL", Integer.class, queue)).isEqualTo(1);
			this.jdbc.update("DELETE FROM taskqueue_task WHERE queue = ?", queue);
		}
	}

	/** Types {@code text} in the page's search box and presses Enter. */
	private void find(String text) {
		WebElement box = this.browser.driver.findElement(By.name("q"));
		box.clear();
		box.sendKeys(text, Keys.ENTER);
		new WebDriverWait(this.browser.driver, WAIT).until(ExpectedConditions.titleContains("Find "));
	}

	/** The rows the search found: task, queue, state, what matched, and the key, without the time. */
	private List<String> foundRows() {
		return this.browser.driver.findElements(By.cssSelector("main tbody tr"))
			.stream()
			.map((row) -> {
				List<WebElement> cells = row.findElements(By.tagName("td"));
				List<String> texts = new ArrayList<>();
				for (int i = 0; i < cells.size(); i++) {
					String text = cells.get(i).getAttribute("textContent");
					if (i != 4 && !text.isEmpty()) {
						texts.add(text);
					}
				}
				return String.join(" ", texts);
			})
			.toList();
	}

	private void tab() {
		new Actions(this.browser.driver).sendKeys(Keys.TAB).perform();
	}

	/** Presses Tab until {@code target} has the focus: it fails if it never does. */
	private void tabTo(WebElement target) {
		for (int i = 0; i < 300; i++) {
			if (this.browser.driver.switchTo().activeElement().equals(target)) {
				return;
			}
			tab();
		}
		throw new AssertionError("Tab never reached " + target);
	}

	/** Queues with waiting, scheduled, dead and completed tasks, and an hour of per-minute counts. */
	private UUID seedData() {
		for (int i = 0; i < 250; i++) {
			this.taskQueue.enqueue(TaskRequest.of("reports", "{\"report\":" + i + "}").withPriority(i % 2));
		}
		this.taskQueue.enqueue(TaskRequest.of("reports", "monthly").withDelay(Duration.ofHours(2)));
		this.taskQueue.enqueue(TaskRequest.of("emails", "welcome").withDelay(Duration.ofMinutes(10)));
		List<UUID> completed = this.taskQueue.enqueueAll(List.of(TaskRequest.of("dash-ok", "1"),
				TaskRequest.of("dash-ok", "2"), TaskRequest.of("dash-ok", "3")));
		UUID dead = this.taskQueue.enqueue("dash-dead", "<script>alert(1)</script>");
		// Two invoices of one customer wait behind the first, and a batch is under way.
		for (int i = 1; i <= 3; i++) {
			this.taskQueue.enqueue(TaskRequest.of("invoices", "{\"invoice\":" + i + "}").withOrderingKey("customer-42"));
		}
		List<TaskRequest> batch = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			batch.add(TaskRequest.of((i < 4) ? "dash-ok" : "emails", "ok " + i));
		}
		this.taskQueue.enqueueBatch(batch, TaskRequest.of("emails", "batch done"));
		Await.until("tasks handled", WAIT, () -> this.handlers.handled.containsAll(completed) && this.jdbc
			.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class, dead) == 1);
		this.recorder.flush();
		// The hour before this test, as instances would have recorded it, so that the charts have a shape.
		this.jdbc.update("""
				INSERT INTO taskqueue_queue_minute (queue, minute, completed, failed)
				SELECT q, date_trunc('minute', now()) - m * interval '1 minute',
				       (40 + 30 * sin(m / 6.0) + (m %% 7) * 3)::bigint, CASE WHEN m %% 11 = 0 THEN 2 ELSE 0 END
				FROM unnest(array['dash-ok', 'reports', 'dash-dead']) q, generate_series(1, 59) m
				ON CONFLICT DO NOTHING
				""".replace("%%", "%"));
		return dead;
	}

	private WebElement row(String queue) {
		return this.browser.driver.findElement(By.xpath("//tr[td/a[text()='" + queue + "']]"));
	}

	/** The text of column {@code index} (0 = queue) in the queue's row of the overview. */
	private String cell(String queue, int index) {
		return row(queue).findElements(By.tagName("td")).get(index).getText();
	}

	@Test
	void trendsShowADayAndWhichQueueFallsBehindAtBothWidths() {
		// A day of minutes for dash-trend (no handler here): a wave of attempts, a few failures, and ready tasks
		// and an oldest wait that grow towards now; then a real sample of 12 tasks ready for 10 minutes.
		this.jdbc.update("INSERT INTO taskqueue_queue_minute (queue, minute, completed, failed, ready, "
				+ "oldest_ready_seconds) SELECT 'dash-trend', date_trunc('minute', now()) - k * interval '1 minute', "
				+ "(60 + 40 * sin(k / 60.0))::int, CASE WHEN k % 45 = 0 THEN 4 ELSE (k % 7 = 0)::int END, "
				+ "greatest(1, (1440 - k) / 300), 30 + (1440 - k) / 10 FROM generate_series(10, 1439) AS k");
		List<TaskRequest> tasks = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			tasks.add(TaskRequest.of("dash-trend", "report " + i).withRunAt(java.time.Instant.now().minusSeconds(600)));
		}
		this.taskQueue.enqueueAll(tasks);
		this.recorder.sample();
		for (int width : new int[] { 1400, 800 }) {
			this.browser.width(width);
			this.browser.driver.get(url("/taskqueue/queues/dash-trend"));
			assertThat(this.browser.driver.findElement(By.cssSelector("details.trends summary")).getText())
				.isEqualTo("Trends falling behind");
			// Two spans of four charts each, every one on screen and within the window.
			List<WebElement> charts = this.browser.driver.findElements(By.cssSelector("details.trends svg.trend"));
			assertThat(charts).hasSize(8).allSatisfy((chart) -> assertThat(chart.isDisplayed()).isTrue());
			assertThat(this.browser.pageWidth()).as("queue page at " + width + " px")
				.isLessThanOrEqualTo(this.browser.viewportWidth());
			this.browser.screenshot("trends-queue-" + width);
			this.browser.driver.get(url("/taskqueue"));
			assertThat(this.browser.driver.findElement(By.cssSelector(".behind")).getText()).isEqualTo("falling behind");
			assertThat(this.browser.pageWidth()).as("overview at " + width + " px")
				.isLessThanOrEqualTo(this.browser.viewportWidth());
			this.browser.screenshot("trends-overview-" + width);
		}
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

}
