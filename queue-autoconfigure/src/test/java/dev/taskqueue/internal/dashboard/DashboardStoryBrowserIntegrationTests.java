package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.taskqueue.RetryPolicy;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task's story in a real browser ({@link DashboardBrowser}): the dead-letter page and the page of a waiting task
 * list each attempt the worker logged (number, start with the exact time on hover, how long it took, instance,
 * outcome, error), at 1,400 and 800 pixels without widening the page. Screenshots {@code story-dead-1400} and
 * {@code story-dead-800} are those of docs/dashboard.md.
 */
@SpringBootTest(classes = { DashboardTestApplication.class, DashboardStoryBrowserIntegrationTests.Story.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true", "taskqueue.dashboard.refresh-interval=10m",
				"taskqueue.worker.poll-interval=50ms", "spring.application.name=orders-service",
				"taskqueue.retry.backoff.initial-delay=10ms", "taskqueue.retry.backoff.max-delay=20ms",
				"taskqueue.queues.dash-payments.max-attempts=4", "taskqueue.queues.dash-payments.timeout=2s",
				"taskqueue.queues.dash-emails.max-attempts=10" })
class DashboardStoryBrowserIntegrationTests {

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
	private JdbcTemplate jdbc;

	private DashboardBrowser browser;

	@BeforeEach
	void openBrowser() {
		this.browser = DashboardBrowser.open(1400);
	}

	@AfterEach
	void closeBrowser() {
		if (this.browser != null) {
			this.browser.close();
		}
	}

	@Test
	void theDeadLetterAndTheWaitingTaskShowEachAttemptAtBothWidths() {
		UUID dead = this.taskQueue.enqueue("dash-payments", Map.of("order", 1042, "amount", "19.90 EUR"));
		UUID waiting = this.taskQueue.enqueue("dash-emails", Map.of("to", "ada@example.com"));
		Await.until("the payment is dead and the e-mail failed twice", DashboardBrowser.WAIT,
				() -> count("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", dead) == 1
						&& count("SELECT count(*) FROM taskqueue_task WHERE id = ? AND attempt = 2 "
								+ "AND claimed_by IS NULL AND jsonb_array_length(attempt_log) = 2", waiting) == 1);
		for (int width : new int[] { 1400, 800 }) {
			this.browser.width(width);
			this.browser.driver.get(url("/taskqueue/tasks/" + dead));
			List<WebElement> rows = attempts();
			assertThat(rows).hasSize(4);
			assertThat(rows).extracting((row) -> cell(row, "outcome"))
				.containsExactly("failed", "timed out", "failed", "dead");
			assertThat(rows).extracting((row) -> cell(row, "#")).containsExactly("1", "2", "3", "4");
			assertThat(rows).allSatisfy((row) -> assertThat(cell(row, "instance")).startsWith("orders-service "));
			assertThat(cell(rows.get(0), "error"))
				.isEqualTo("java.lang.IllegalStateException: payment gateway refused the connection");
			assertThat(cell(rows.get(1), "error")).startsWith("dev.taskqueue.HandlerTimeoutException");
			// Relative, with the exact time on hover, like every time on the dashboard.
			WebElement started = rows.get(0).findElement(By.cssSelector("td[data-label=started] time"));
			assertThat(started.getText()).endsWith("ago");
			assertThat(started.getAttribute("title")).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ");
			assertThat(this.browser.pageWidth()).as("dead-letter page at " + width + " px")
				.isLessThanOrEqualTo(this.browser.viewportWidth());
			this.browser.screenshot("story-dead-" + width);

			this.browser.driver.get(url("/taskqueue/tasks/" + waiting));
			assertThat(attempts()).extracting((row) -> cell(row, "outcome")).containsExactly("failed", "failed");
			assertThat(this.browser.pageWidth()).as("task page at " + width + " px")
				.isLessThanOrEqualTo(this.browser.viewportWidth());
			this.browser.screenshot("story-waiting-" + width);
		}
	}

	private List<WebElement> attempts() {
		return this.browser.driver.findElements(By.xpath("//h2[text()='Attempts']/following::table[1]/tbody/tr"));
	}

	private static String cell(WebElement row, String label) {
		return row.findElement(By.cssSelector("td[data-label='" + label + "']")).getText();
	}

	private int count(String sql, Object... args) {
		return this.jdbc.queryForObject(sql, Integer.class, args);
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

	/**
	 * {@code dash-payments} fails its first attempt, overruns its timeout on the second and fails the rest;
	 * {@code dash-emails} fails, and waits an hour after its second failure.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class Story {

		@Bean
		StoryHandlers storyHandlers() {
			return new StoryHandlers();
		}

		@Bean
		RetryPolicy emailRetries() {
			return (task, failure) -> (task.attempt() >= 2) ? Duration.ofHours(1) : Duration.ofMillis(10);
		}

	}

	static class StoryHandlers {

		@TaskHandler(queue = "dash-payments")
		void pay(Map<String, Object> payload, TaskContext context) throws InterruptedException {
			if (context.attempt() == 2) {
				Thread.sleep(5_000);
			}
			throw new IllegalStateException((context.attempt() == 1) ? "payment gateway refused the connection"
					: "payment gateway answered 503 Service Unavailable");
		}

		@TaskHandler(queue = "dash-emails", retryPolicy = "emailRetries")
		void email(Map<String, Object> payload, TaskContext context) {
			throw new IllegalStateException("mail server said 451 4.7.1 try again later");
		}

	}

}
