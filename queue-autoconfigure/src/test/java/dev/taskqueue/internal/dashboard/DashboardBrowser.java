package dev.taskqueue.internal.dashboard;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The system's headless Chromium, driven through the system's chromedriver (Debian's {@code chromium} and
 * {@code chromium-driver}; nothing is downloaded), for the dashboard's browser tests. Screenshots go to
 * {@code target/dashboard-screenshots/}.
 */
final class DashboardBrowser implements AutoCloseable {

	static final Duration WAIT = Duration.ofSeconds(20);

	private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	private static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");

	final WebDriver driver;

	private DashboardBrowser(WebDriver driver) {
		this.driver = driver;
	}

	/** A browser window {@code width} pixels wide; the test is skipped, saying why, without Chromium. */
	static DashboardBrowser open(int width) {
		assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
				"No browser test: needs Chromium at " + CHROMIUM + " and its driver at " + CHROMEDRIVER
						+ " (apt-get install chromium chromium-driver; .ci/run installs them)");
		ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
			.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
					"--window-size=" + width + ",1300");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.build();
		ChromeDriver driver = new ChromeDriver(service, options);
		driver.manage().timeouts().pageLoadTimeout(WAIT);
		return new DashboardBrowser(driver);
	}

	/** Makes the window {@code width} pixels wide. */
	void width(int width) {
		this.driver.manage().window().setSize(new Dimension(width, 1300));
	}

	/** The viewport's width, in CSS pixels. */
	long viewportWidth() {
		return ((Number) script("return document.documentElement.clientWidth")).longValue();
	}

	/** How wide the page is laid out: wider than {@link #viewportWidth()} when something overflows it. */
	long pageWidth() {
		return ((Number) script("return document.documentElement.scrollWidth")).longValue();
	}

	/**
	 * Runs a script through the driver (the DevTools protocol): the page's Content-Security-Policy, which lets no
	 * script of a page run, does not apply to it. The dashboard's pages themselves have no script.
	 */
	Object script(String script, Object... arguments) {
		return ((JavascriptExecutor) this.driver).executeScript(script, arguments);
	}

	/**
	 * The message of the page an action redirected to: a form's submission may still be on its way when click()
	 * or a key returns, so it waits for the message to be there.
	 */
	String flash() {
		return new WebDriverWait(this.driver, WAIT)
			.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".flash")))
			.getText();
	}

	void screenshot(String name) {
		try {
			Files.createDirectories(SCREENSHOTS);
			File shot = ((TakesScreenshot) this.driver).getScreenshotAs(OutputType.FILE);
			Files.copy(shot.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		this.driver.quit();
	}

}
