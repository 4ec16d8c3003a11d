package dev.taskqueue.fault;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.autoconfigure.ThroughputAutoConfiguration;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database outage is said once per instance, not once per try of every background loop: one WARN when the
 * database cannot be reached, one INFO with the outage's duration when it is back, and no stack trace above DEBUG.
 * Before, a 20 s outage printed about 1,400 lines per instance.
 */
class DatabaseOutageLogIntegrationTests {

	private static final int INSTANCES = 2;

	@TempDir
	Path dataDirectory;

	private EmbeddedPostgres postgres;

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger taskQueueLogger = (Logger) LoggerFactory.getLogger("dev.taskqueue");

	@AfterEach
	void stop() throws IOException {
		this.taskQueueLogger.detachAppender(this.appender);
		this.instances.forEach(ConfigurableApplicationContext::close);
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test
	void anOutageIsOneWarnAndOneInfoPerInstance() throws Exception {
		int port = freePort();
		this.postgres = start(port);
		String url = this.postgres.getJdbcUrl("postgres", "postgres");
		for (int i = 0; i < INSTANCES; i++) {
			this.instances.add(TestApplications.start(url, List.of(Config.class),
					"spring.datasource.hikari.connection-timeout=500", "taskqueue.worker.heartbeat-interval=200ms",
					"taskqueue.worker.session-timeout=60s", "taskqueue.worker.poll-interval=100ms",
					"taskqueue.schedules.often.fixed-rate=1h", "taskqueue.schedules.often.queue=ticks"));
		}
		this.appender.start();
		this.taskQueueLogger.addAppender(this.appender);

		this.postgres.close();
		Await.until("the outage is noticed", Duration.ofSeconds(30), () -> count(Level.WARN) >= INSTANCES);
		Thread.sleep(3_000); // every loop fails a few times more
		this.postgres = start(port);
		Await.until("the database is known back", Duration.ofSeconds(30),
				() -> messages(Level.INFO, "reached the database again after") >= INSTANCES);
		Thread.sleep(1_000);

		List<ILoggingEvent> events = List.copyOf(this.appender.list);
		List<String> warnings = events.stream()
			.filter((event) -> event.getLevel().isGreaterOrEqual(Level.WARN))
			.map((event) -> event.getLoggerName() + ": " + event.getFormattedMessage())
			.toList();
		assertThat(warnings).hasSize(INSTANCES)
			.allMatch((line) -> line.contains("TaskQueue cannot reach the database"));
		assertThat(messages(Level.INFO, "reached the database again after")).isEqualTo(INSTANCES);
		assertThat(events.stream()
			.filter((event) -> event.getLevel().isGreaterOrEqual(Level.INFO) && event.getThrowableProxy() != null)
			.map(ILoggingEvent::getFormattedMessage)).as("no stack trace above DEBUG").isEmpty();
	}

	private long count(Level level) {
		return List.copyOf(this.appender.list).stream().filter((event) -> event.getLevel().equals(level)).count();
	}

	private long messages(Level level, String text) {
		return List.copyOf(this.appender.list)
			.stream()
			.filter((event) -> event.getLevel().equals(level) && event.getFormattedMessage().contains(text))
			.count();
	}

	private EmbeddedPostgres start(int port) throws IOException {
		return EmbeddedPostgres.builder()
			.setDataDirectory(this.dataDirectory)
			.setCleanDataDirectory(false)
			.setPort(port)
			.start();
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	@Configuration(proxyBeanMethods = false)
	// With the dashboard's throughput recorder, a loop that runs in every application with a worker: one that said
	// "back" after a round without a statement made this test count 15 WARN lines instead of 2.
	@ImportAutoConfiguration(ThroughputAutoConfiguration.class)
	static class Config {

		@Bean
		Ticks ticks() {
			return new Ticks();
		}

	}

	static class Ticks {

		@TaskHandler(queue = "ticks")
		void handle(Object payload) {
		}

	}

}
