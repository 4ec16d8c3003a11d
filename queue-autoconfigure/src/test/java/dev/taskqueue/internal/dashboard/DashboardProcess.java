package dev.taskqueue.internal.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The dashboard's test application in a JVM of its own, with a heap of 256 MB: a page that reads more than that
 * fails there with an OutOfMemoryError, as it would in a production instance, without taking the test JVM down.
 * Its output is in a file under {@code target/dashboard-logs}; {@link #close()} kills it.
 */
final class DashboardProcess implements AutoCloseable {

	private static final Pattern PORT = Pattern.compile("DASHBOARD PORT (\\d+)");

	private final Process process;

	private final Path log;

	private DashboardProcess(Process process, Path log) {
		this.process = process;
		this.log = log;
	}

	/** The child's main: the test application on {@code args[0]}, a JDBC URL, on a random port it prints. */
	public static void main(String[] args) {
		List<String> arguments = new ArrayList<>(List.of("--spring.datasource.url=" + args[0], "--server.port=0",
				"--taskqueue.dashboard.enabled=true", "--taskqueue.worker.enabled=false"));
		arguments.addAll(List.of(args).subList(1, args.length));
		ConfigurableApplicationContext context = SpringApplication.run(DashboardTestApplication.class,
				arguments.toArray(String[]::new));
		System.out.println("DASHBOARD PORT " + ((WebServerApplicationContext) context).getWebServer().getPort());
	}

	static DashboardProcess start(String url, String... properties) {
		try {
			Path dir = Files.createDirectories(Path.of("target", "dashboard-logs").toAbsolutePath());
			Path log = dir.resolve("dashboard-" + System.currentTimeMillis() + ".log");
			String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
			List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp",
					System.getProperty("java.class.path"), DashboardProcess.class.getName(), url));
			command.addAll(List.of(properties));
			Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
			return new DashboardProcess(process, log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start the dashboard's process", ex);
		}
	}

	/** Waits until the application serves, and returns its port. */
	int awaitPort(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			Matcher matcher = PORT.matcher(output());
			if (matcher.find()) {
				return Integer.parseInt(matcher.group(1));
			}
			if (!this.process.isAlive() || System.nanoTime() > deadline) {
				throw new AssertionError("The dashboard's process did not start; its output (" + this.log + "):\n"
						+ output());
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted", ex);
			}
		}
	}

	String output() {
		try {
			return Files.readString(this.log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(20, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
