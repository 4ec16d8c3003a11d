package dev.taskqueue.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link WorkerProcess} started in a JVM of its own, with its output in a file under {@code target/fault-logs};
 * {@link #close()} kills it if it still runs, so no test leaves a process behind.
 */
final class ForkedWorker implements AutoCloseable {

	private static final Pattern STARTED = Pattern.compile("TaskQueue worker started as session ([0-9a-f-]{36})");

	private static final Pattern CLOCKS = Pattern.compile("CLOCKS jvm=(\\d+) database=(\\d+)");

	private final String name;

	private final Process process;

	private final Path log;

	private ForkedWorker(String name, Process process, Path log) {
		this.name = name;
		this.process = process;
		this.log = log;
	}

	/** Starts a worker named {@code name} on {@code url} with {@code properties} and extra environment variables. */
	static ForkedWorker start(String name, String url, Map<String, String> environment, String... properties) {
		try {
			Path dir = Files.createDirectories(Path.of("target", "fault-logs").toAbsolutePath());
			Path log = dir.resolve(name + "-" + System.currentTimeMillis() + ".log");
			String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
			List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC",
					"-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
					WorkerProcess.class.getName(), url, "worker.name=" + name));
			command.addAll(List.of(properties));
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
			builder.environment().putAll(environment);
			return new ForkedWorker(name, builder.start(), log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start worker process " + name, ex);
		}
	}

	/** Waits until the worker has started and returns its session id. */
	UUID awaitStarted(Duration timeout) {
		Matcher matcher = awaitLine(STARTED, timeout);
		awaitLine(CLOCKS, timeout);
		return UUID.fromString(matcher.group(1));
	}

	/** How far the worker's JVM clock is ahead of the database clock (negative when behind), as it measured. */
	Duration clockSkew() {
		Matcher matcher = awaitLine(CLOCKS, Duration.ZERO);
		return Duration.ofMillis(Long.parseLong(matcher.group(1)) - Long.parseLong(matcher.group(2)));
	}

	/** Kills the worker with SIGKILL and waits until it is gone. */
	void kill() {
		this.process.destroyForcibly();
		try {
			if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Worker process " + this.name + " did not die");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Stops the worker with SIGTERM, as a deploy does, and waits until it has shut down: Spring's shutdown hook
	 * closes the context, so TaskQueue's graceful shutdown runs.
	 */
	void terminate(Duration timeout) {
		this.process.destroy();
		try {
			if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("Worker process " + this.name + " did not stop after SIGTERM");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** How many lines of the worker's output contain {@code text}. */
	long linesContaining(String text) {
		return output().lines().filter((line) -> line.contains(text)).count();
	}

	String output() {
		try {
			return Files.readString(this.log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	Path log() {
		return this.log;
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			kill();
		}
	}

	private Matcher awaitLine(Pattern pattern, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			Matcher matcher = pattern.matcher(output());
			if (matcher.find()) {
				return matcher;
			}
			if (!this.process.isAlive() || System.nanoTime() > deadline) {
				throw new AssertionError("Worker process " + this.name + " did not log '" + pattern.pattern() + "' ("
						+ (this.process.isAlive() ? "still running" : "exited") + "); its output (" + this.log + "):\n"
						+ tail(output()));
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

	private static String tail(String text) {
		return (text.length() <= 4000) ? text : text.substring(text.length() - 4000);
	}

}
