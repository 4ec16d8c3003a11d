package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pages that reload themselves, in a real browser ({@link DashboardBrowser}), with a reload every second: a
 * queue's page follows the queue as it drains, keeps its view, never posts an action again, and stops reloading
 * when asked.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true", "taskqueue.dashboard.read-only=false",
				"taskqueue.dashboard.refresh-interval=1s", "taskqueue.worker.poll-interval=50ms",
				"taskqueue.worker.heartbeat-interval=200ms" })
class DashboardRefreshBrowserIntegrationTests {

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

	private DashboardBrowser browser;

	@BeforeEach
	void openBrowser() {
		this.browser = DashboardBrowser.open(800);
	}

	@AfterEach
	void closeBrowser() {
		if (this.browser != null) {
			this.browser.close();
		}
	}

	@Test
	void theQueuePageFollowsTheQueueDrainingAndNeverPostsAnActionAgain() {
		List<TaskRequest> tasks = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			tasks.add(TaskRequest.of("dash-ok", "{\"n\":" + i + "}"));
		}
		this.operations.pause("dash-ok");
		List<UUID> ids = this.taskQueue.enqueueAll(tasks);
		String page = url("/taskqueue/queues/dash-ok?view=ready");
		this.browser.driver.get(page);
		// Waits rather than looks once: the page may be between two of its reloads, every second.
		new WebDriverWait(this.browser.driver, DashboardBrowser.WAIT)
			.until((driver) -> "ready (30)".equals(tab("ready"))
					&& driver.findElements(By.linkText(ids.get(0).toString())).size() == 1);
		this.browser.screenshot("people-refresh-before-800");

		// Resume it behind the page's back: the page shows the queue drain with no click, in the view asked for.
		this.operations.resume("dash-ok");
		new WebDriverWait(this.browser.driver, DashboardBrowser.WAIT)
			.until((driver) -> "ready (0)".equals(tab("ready")));
		assertThat(this.browser.driver.getCurrentUrl()).isEqualTo(page);
		assertThat(text("main")).contains("No ready task.");
		this.browser.screenshot("people-refresh-drained-800");

		// Pause it with the page's button: the action redirects to the queue's page (a GET), which goes on reloading.
		clickUntilFlash("Pause", "Paused queue dash-ok");
		assertThat(this.operations.isPaused("dash-ok")).isTrue();

		// Resume it behind the page's back again: a reload that posted the Pause again would pause it again.
		this.operations.resume("dash-ok");
		reloaded();
		reloaded();
		assertThat(this.operations.isPaused("dash-ok")).isFalse();
		assertThat(this.browser.driver.getCurrentUrl()).endsWith("/taskqueue/queues/dash-ok");
		assertThat(this.browser.driver.findElements(By.cssSelector(".flash"))).isEmpty();
	}

	@Test
	void aReloadKeepsTheFilterAndTheReloadingCanBeStopped() {
		this.taskQueue.enqueue("dash-filtered", "{}");
		String page = url("/taskqueue/queues/dash-filtered?view=scheduled");
		this.browser.driver.get(page);
		reloaded();
		assertThat(this.browser.driver.getCurrentUrl()).isEqualTo(page);
		assertThat(text("h2")).startsWith("Scheduled");

		clickUntilAt("stop reloading", page + "&refresh=off");
		assertThat(this.browser.driver.findElements(By.cssSelector("meta[http-equiv=refresh]"))).isEmpty();
		assertThat(this.browser.driver.findElement(By.cssSelector(".reload")).getText())
			.isEqualTo("Reloading is off · reload every 1s");
		this.browser.driver.findElement(By.linkText("reload every 1s")).click();
		new WebDriverWait(this.browser.driver, DashboardBrowser.WAIT).until(ExpectedConditions.urlToBe(page));
		assertThat(this.browser.driver.findElements(By.cssSelector("meta[http-equiv=refresh]"))).hasSize(1);
	}

	@Test
	void theWaitingTasksFilterIsTypedOnAPageThatDoesNotReload() throws InterruptedException {
		this.taskQueue.enqueue(TaskRequest.of("dash-typing", "{}").withDelay(Duration.ofHours(1)));
		String page = url("/taskqueue/queues/dash-typing");
		this.browser.driver.get(page);
		// The reloading page has no field to lose a half-typed filter in: a link leads to the form.
		assertThat(this.browser.driver.findElements(By.name("error"))).isEmpty();
		clickUntilAt("Filter the waiting tasks", page + "?refresh=off#filter");
		assertThat(this.browser.driver.findElements(By.cssSelector("meta[http-equiv=refresh]"))).isEmpty();
		WebElement error = this.browser.driver.findElement(By.name("error"));
		error.sendKeys("timed");
		Thread.sleep(3_000); // three reload intervals: a reload would leave the field stale, and empty
		assertThat(error.getAttribute("value")).isEqualTo("timed");
		error.sendKeys(" out", Keys.ENTER);
		new WebDriverWait(this.browser.driver, DashboardBrowser.WAIT)
			.until(ExpectedConditions.urlContains("error=timed+out"));
		assertThat(this.browser.driver.findElement(By.cssSelector("main div.bulk")).getText())
			.startsWith("0 waiting tasks match.");
	}

	/**
	 * Clicks the button {@code label} until the page's flash starts with {@code flash}: the page reloads itself every
	 * second, and a reload between finding the button and clicking it loses the click (Chrome: the node does not
	 * belong to the document). Posting the action twice is harmless here: a pause of a paused queue.
	 */
	private void clickUntilFlash(String label, String flash) {
		new WebDriverWait(this.browser.driver, DashboardBrowser.WAIT).until((driver) -> {
			try {
				if (hasFlash(driver, flash)) { // an earlier click got there after its 3 s (a loaded machine)
					return true;
				}
				driver.findElement(By.xpath("//button[text()='" + label + "']")).click();
				return new WebDriverWait(driver, Duration.ofSeconds(3)).until((page) -> hasFlash(page, flash));
			}
			catch (WebDriverException ex) { // stale, detached, or no flash within 3 s: the click met a reload
				return false;
			}
		});
	}

	private static boolean hasFlash(WebDriver driver, String flash) {
		return driver.findElements(By.cssSelector(".flash"))
			.stream()
			.anyMatch((element) -> element.getText().startsWith(flash));
	}

	/**
	 * Clicks the link {@code text} until the browser is at {@code url}: a reload of the page between finding the link
	 * and clicking it loses the click, and on a loaded machine the page an earlier click asked for may come after
	 * the 3 s each click waits (then the link is gone, and the browser is there).
	 */
	private void clickUntilAt(String text, String url) {
		new WebDriverWait(this.browser.driver, DashboardBrowser.WAIT).until((driver) -> {
			try {
				if (url.equals(driver.getCurrentUrl())) {
					return true;
				}
				driver.findElement(By.linkText(text)).click();
				return new WebDriverWait(driver, Duration.ofSeconds(3)).until(ExpectedConditions.urlToBe(url));
			}
			catch (WebDriverException ex) { // stale, detached, or not there within 3 s: the click met a reload
				return false;
			}
		});
	}

	/** Waits for the page to reload itself: the document the test holds goes stale. */
	private void reloaded() {
		WebElement html = this.browser.driver.findElement(By.tagName("html"));
		new WebDriverWait(this.browser.driver, DashboardBrowser.WAIT).until(ExpectedConditions.stalenessOf(html));
		new WebDriverWait(this.browser.driver, DashboardBrowser.WAIT)
			.until(ExpectedConditions.presenceOfElementLocated(By.tagName("main")));
	}

	/** The text of the first element {@code selector} selects, read again if a reload took the page away. */
	private String text(String selector) {
		return new WebDriverWait(this.browser.driver, DashboardBrowser.WAIT).until((driver) -> {
			try {
				return driver.findElement(By.cssSelector(selector)).getText();
			}
			catch (WebDriverException ex) {
				return null;
			}
		});
	}

	/** The text of the view's tab, such as "ready (30)"; empty while the page reloads. */
	private String tab(String view) {
		try {
			return this.browser.driver
				.findElement(By.xpath("//p[@class='tabs']/a[starts-with(text(), '" + view + " (')]"))
				.getText();
		}
		catch (WebDriverException ex) { // not there yet, or stale: the page is between two documents
			return "";
		}
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

}
