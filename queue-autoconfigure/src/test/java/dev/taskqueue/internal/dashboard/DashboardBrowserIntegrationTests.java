package dev.taskqueue.internal.dashboard;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard in a real browser: the system's headless Chromium, driven through the system's chromedriver
 * (Debian's {@code chromium} and {@code chromium-driver}; nothing is downloaded). Opens the overview, pauses a queue,
 * opens a dead letter and retries it, checking the page and the database after each step. Screenshots go to
 * {@code target/dashboard-screenshots/}.
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

	private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	private static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");

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

	private WebDriver browser;

	@BeforeEach
	void openBrowser() {
		assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
				"No browser test: needs Chromium at " + CHROMIUM + " and its driver at " + CHROMEDRIVER
						+ " (apt-get install chromium chromium-driver; .ci/run installs them)");
		ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
			.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
					"--window-size=1400,1300");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.build();
		this.browser = new ChromeDriver(service, options);
		this.browser.manage().timeouts().pageLoadTimeout(WAIT);
	}

	@AfterEach
	void closeBrowser() {
		if (this.browser != null) {
			this.browser.quit();
		}
	}

	@Test
	void overviewPauseAndRetryADeadLetter() throws IOException {
		UUID dead = seedData();

		// 1. The overview lists the queues with their counts, charts and the live instance.
		this.browser.get(url("/taskqueue"));
		assertThat(this.browser.getTitle()).isEqualTo("Overview · TaskQueue");
		assertThat(cell("reports", 2)).isEqualTo("250");
		assertThat(this.browser.findElements(By.cssSelector("svg.spark.ok rect"))).isNotEmpty();
		assertThat(this.browser.findElement(By.tagName("body")).getText()).contains("orders-service")
			.contains("nightly-cleanup");
		assertThat(cell("invoices", 5)).isEqualTo("2 (key 2)");
		assertThat(cell("reports", 5)).isEqualTo("150 (rate 150)");
		screenshot("1-overview");

		// 2. Pause a queue: the page says so, and the database has it paused.
		row("reports").findElement(By.xpath(".//button[text()='Pause']")).click();
		assertThat(flash()).startsWith("Paused queue reports");
		assertThat(cell("reports", 1)).isEqualTo("paused");
		assertThat(this.jdbc.queryForObject("SELECT paused FROM taskqueue_queue WHERE name = 'reports'", Boolean.class))
			.isTrue();
		screenshot("2-paused");

		// 3. Open the dead letter from the dead-letter list: its whole stack trace is there.
		this.browser.findElement(By.linkText("Dead letters")).click();
		this.browser.findElement(By.linkText(dead.toString())).click();
		assertThat(this.browser.getTitle()).isEqualTo("Dead task " + dead + " · TaskQueue");
		assertThat(this.browser.findElement(By.cssSelector("pre.error")).getText())
			.startsWith("dev.taskqueue.NonRetryableTaskException: refused <script>")
			.contains("at dev.taskqueue.internal.dashboard.DashboardTestApplication$Handlers.dead");
		screenshot("3-dead-letter");

		// 4. Retry it: confirm, then the dead-letter list says what happened and the task runs.
		this.handlers.refusing.set(false);
		this.browser.findElement(By.xpath("//button[text()='Retry']")).click();
		// A form's submission may still be on its way when click() returns.
		new WebDriverWait(this.browser, WAIT).until(ExpectedConditions.titleIs("Confirm · TaskQueue"));
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class,
				dead)).isEqualTo(1);
		screenshot("4-confirm");
		this.browser.findElement(By.id("confirm")).click();
		assertThat(flash())
			.isEqualTo("Retried task " + dead + ": it is back in queue dash-dead.");
		Await.until("the retried task runs", WAIT, () -> this.handlers.handled.contains(dead));
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class,
				dead)).isZero();
		screenshot("5-retried");
	}

	/**
	 * The message of the page an action redirected to: a form's submission may still be on its way when click()
	 * returns, so it waits for the message to be there.
	 */
	private String flash() {
		return new WebDriverWait(this.browser, WAIT)
			.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".flash")))
			.getText();
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

	private org.openqa.selenium.WebElement row(String queue) {
		return this.browser.findElement(By.xpath("//tr[td/a[text()='" + queue + "']]"));
	}

	/** The text of column {@code index} (0 = queue) in the queue's row of the overview. */
	private String cell(String queue, int index) {
		return row(queue).findElements(By.tagName("td")).get(index).getText();
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

	private void screenshot(String name) throws IOException {
		Files.createDirectories(SCREENSHOTS);
		File shot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE);
		Files.copy(shot.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
	}

}
