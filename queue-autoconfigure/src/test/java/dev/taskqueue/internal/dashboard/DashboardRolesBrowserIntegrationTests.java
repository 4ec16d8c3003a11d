package dev.taskqueue.internal.dashboard;

import java.util.List;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
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
 * The roles in a real browser ({@link DashboardBrowser}), signed in through Spring Security's login page, at 1,400
 * and 800 pixels: an operator retries the dead letters a filter matches and pauses a queue, then reads the audit log
 * (with an entry of the actuator endpoint and one of the application's code besides); a viewer sees the dead letters
 * with no button. Screenshots {@code dashboard-audit-*} and {@code dashboard-viewer-*} go to
 * {@code target/dashboard-screenshots/}.
 */
@SpringBootTest(classes = { DashboardTestApplication.class, DashboardRolesIntegrationTests.Security.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true", "taskqueue.dashboard.read-only=false",
				"management.endpoints.web.exposure.include=taskqueue",
				"management.endpoint.taskqueue.access=unrestricted", "roles.form-login=true" })
class DashboardRolesBrowserIntegrationTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private TaskQueue taskQueue;

	@Autowired
	private TaskQueueOperations operations;

	@Test
	void anOperatorActsAndReadsTheAuditLogAndAViewerSeesNoButton() {
		for (int width : List.of(1400, 800)) {
			String queue = "invoices-" + width;
			deadLetters(queue, 4, "java.net.SocketTimeoutException: Read timed out");
			deadLetters(queue, 2, "java.lang.IllegalStateException: no such customer");
			deadLetters("emails-" + width, 3, "boom");
			// An entry of the actuator endpoint (a script, HTTP basic) and one of the application's own code.
			assertThat(new DashboardHttp(this.port, "ops-script", "secret")
				.send("DELETE", "/actuator/taskqueue/emails-" + width + "/dead?all=true")
				.statusCode()).isEqualTo(200);
			this.taskQueue.enqueue("reports-" + width, "\"monthly\"");
			assertThat(this.operations.cancelAll("reports-" + width)).isOne();

			try (DashboardBrowser browser = DashboardBrowser.open(width)) {
				signIn(browser, "operator");
				browser.driver.get(url("/taskqueue/dead?queue=" + queue + "&error=timed+out"));
				browser.driver.findElement(By.xpath("//button[text()='Retry all that match']")).click();
				new WebDriverWait(browser.driver, DashboardBrowser.WAIT)
					.until(ExpectedConditions.titleIs("Confirm · TaskQueue"));
				assertThat(browser.driver.findElement(By.tagName("main")).getText())
					.contains("Retry the 4 dead tasks that match");
				browser.driver.findElement(By.id("confirm")).click();
				assertThat(browser.flash()).startsWith("Retried 4 dead tasks");
				browser.driver.get(url("/taskqueue/queues/" + queue));
				browser.driver.findElement(By.xpath("//button[text()='Pause']")).click();
				assertThat(browser.flash()).startsWith("Paused queue " + queue);

				browser.driver.findElement(By.linkText("Audit log")).click();
				assertThat(browser.driver.getTitle()).isEqualTo("Audit log · TaskQueue");
				assertThat(cells(browser, 0)).containsExactly("operator", "dashboard", "pause", "queue " + queue,
						"1");
				assertThat(cells(browser, 1)).containsExactly("operator", "dashboard", "retry-dead",
						"queue " + queue + ", error contains \"timed out\"", "4");
				assertThat(cells(browser, 2)).containsExactly("application", "api", "cancel-waiting",
						"queue reports-" + width, "1");
				assertThat(cells(browser, 3)).containsExactly("ops-script", "actuator", "delete-dead",
						"queue emails-" + width, "3");
				assertThat(browser.pageWidth()).isLessThanOrEqualTo(browser.viewportWidth());
				browser.screenshot("dashboard-audit-" + width);

				// Signed out, then in as a viewer: the same dead letters, not one button.
				browser.driver.manage().deleteAllCookies();
				signIn(browser, "viewer");
				browser.driver.get(url("/taskqueue/dead?queue=" + queue));
				assertThat(browser.driver.findElements(By.cssSelector("tbody tr"))).hasSize(2);
				assertThat(browser.driver.findElements(By.cssSelector("form[method=post]"))).isEmpty();
				assertThat(browser.driver.findElement(By.cssSelector("nav .badge")).getText()).isEqualTo("view only");
				assertThat(browser.pageWidth()).isLessThanOrEqualTo(browser.viewportWidth());
				browser.screenshot("dashboard-viewer-" + width);
				browser.driver.findElement(By.linkText("Audit log")).click();
				assertThat(cells(browser, 0)).containsExactly("operator", "dashboard", "pause", "queue " + queue,
						"1");
			}
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = ?",
					Integer.class, queue)).isEqualTo(2);
			assertThat(this.operations.isPaused(queue)).isTrue();
		}
	}

	/** Signs in through Spring Security's own login page, where the dashboard sends a browser without a session. */
	private void signIn(DashboardBrowser browser, String user) {
		browser.driver.get(url("/taskqueue"));
		new WebDriverWait(browser.driver, DashboardBrowser.WAIT)
			.until(ExpectedConditions.presenceOfElementLocated(By.name("username")));
		browser.driver.findElement(By.name("username")).sendKeys(user);
		browser.driver.findElement(By.name("password")).sendKeys("secret");
		browser.driver.findElement(By.cssSelector("button[type=submit]")).click();
		new WebDriverWait(browser.driver, DashboardBrowser.WAIT).until(ExpectedConditions.titleIs("Overview · TaskQueue"));
	}

	/** The cells of row {@code index} of the audit page but the first (the time), as shown. */
	private static List<String> cells(DashboardBrowser browser, int index) {
		WebElement row = browser.driver.findElements(By.cssSelector("tbody tr")).get(index);
		List<WebElement> cells = row.findElements(By.tagName("td"));
		return cells.subList(1, cells.size()).stream().map((cell) -> cell.getAttribute("textContent").strip()).toList();
	}

	private void deadLetters(String queue, int count, String error) {
		this.jdbc.update("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error)
				SELECT gen_random_uuid(), ?, ('{"invoice": ' || i || '}')::jsonb, 0, 3, now() - interval '1 day',
				       now() - i * interval '1 min', ?
				FROM generate_series(1, ?) i
				""", queue, error, count);
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

}
