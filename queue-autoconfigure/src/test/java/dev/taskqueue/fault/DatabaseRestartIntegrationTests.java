package dev.taskqueue.fault;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PostgreSQL stopped and started again under load (an embedded server of this test's own, on the same data
 * directory and port): two worker instances and a producer recover without a restart, every task whose enqueue
 * returned is handled exactly once, and every enqueue that did not throw to its caller.
 */
@ExtendWith(OutputCaptureExtension.class)
class DatabaseRestartIntegrationTests {

	private static final Duration OUTAGE = Duration.ofSeconds(4);

	@TempDir
	Path dataDirectory;

	private EmbeddedPostgres postgres;

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@AfterEach
	void stop() throws IOException {
		this.instances.forEach(ConfigurableApplicationContext::close);
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	@Test
	void workersAndProducerRecoverAndEveryCommittedTaskRunsOnce(CapturedOutput output) throws Exception {
		int port = freePort();
		this.postgres = start(port);
		String url = this.postgres.getJdbcUrl("postgres", "postgres");
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		jdbc.execute("CREATE TABLE business (seq int NOT NULL, task_id uuid NOT NULL)");
		String[] settings = { "spring.datasource.hikari.connection-timeout=2000", "taskqueue.worker.concurrency=4",
				"taskqueue.worker.heartbeat-interval=1s", "taskqueue.worker.session-timeout=10s",
				"taskqueue.worker.poll-interval=200ms" };
		for (int i = 0; i < 2; i++) {
			this.instances.add(TestApplications.start(url, List.of(Config.class), settings));
		}
		Producer producer = new Producer(this.instances.get(0));
		Thread producing = new Thread(producer, "producer");
		producing.start();
		try {
			Await.until("tasks flow", Duration.ofSeconds(30), () -> count(jdbc, "SELECT count(*) FROM business") > 100);
			long linesAtStop = output.toString().lines().count();
			this.postgres.close();
			Thread.sleep(OUTAGE.toMillis() / 2);
			long linesAtHalf = output.toString().lines().count();
			Thread.sleep(OUTAGE.toMillis() / 2);
			String firstHalf = String.join("\n",
					output.toString().lines().skip(linesAtStop).limit(linesAtHalf - linesAtStop).toList());
			String secondHalf = String.join("\n", output.toString().lines().skip(linesAtHalf).toList());
			this.postgres = start(port);
			long restarted = System.nanoTime();
			int handledAtRestart = count(jdbc, "SELECT count(*) FROM business");
			int enqueuedAtRestart = producer.enqueued.size();
			Await.until("handlers run again", Duration.ofSeconds(30),
					() -> count(jdbc, "SELECT count(*) FROM business") > handledAtRestart);
			Duration workersBack = Duration.ofNanos(System.nanoTime() - restarted);
			Await.until("enqueues succeed again", Duration.ofSeconds(30),
					() -> producer.enqueued.size() > enqueuedAtRestart);
			Duration producerBack = Duration.ofNanos(System.nanoTime() - restarted);
			Thread.sleep(2_000);
			producer.running.set(false);
			producing.join(10_000);

			Await.until("every task is done", Duration.ofSeconds(60),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			List<Integer> handled = jdbc.queryForList("SELECT seq FROM business", Integer.class);
			Set<Integer> expected = new HashSet<>(producer.enqueued);
			Set<Integer> committedDespiteError = new HashSet<>(handled);
			committedDespiteError.removeAll(expected);
			System.out.println("MEASURED: database restart (" + OUTAGE.toSeconds() + " s down): "
					+ producer.enqueued.size() + " enqueues returned, " + producer.failedBeforeCommit.size()
					+ " threw before commit, " + producer.failedOnCommit.size() + " threw on commit (of which "
					+ committedDespiteError.size() + " had committed); workers handled tasks again "
					+ workersBack.toMillis() + " ms and the producer enqueued again " + producerBack.toMillis()
					+ " ms after the database was back; log lines (stack frames) in the outage's first half "
					+ lines(firstHalf) + " (" + frames(firstHalf) + "), second half " + lines(secondHalf) + " ("
					+ frames(secondHalf) + ")");
			assertThat(handled).as("no task handled twice").doesNotHaveDuplicates();
			assertThat(handled).containsAll(expected);
			assertThat(committedDespiteError).as("only an enqueue whose commit failed may have committed")
				.isSubsetOf(producer.failedOnCommit.keySet());
			assertThat(producer.failedBeforeCommit.size() + producer.failedOnCommit.size())
				.as("enqueues during the outage threw").isPositive();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			assertThat(workersBack).isLessThan(Duration.ofSeconds(10));
			assertThat(producerBack).isLessThan(Duration.ofSeconds(10));
			assertThat(frames(secondHalf)).as("no stack traces once the connections are known broken").isZero();
			assertThat(lines(secondHalf)).as("a few lines a second while the database stays away").isLessThan(30);
		}
		finally {
			producer.running.set(false);
			producing.join(10_000);
		}
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

	/** The application's log lines, without those of the embedded server. */
	private static long lines(String log) {
		return log.lines().filter((line) -> !line.isBlank() && !line.contains("embedded.EmbeddedPostgres")).count();
	}

	private static long frames(String log) {
		return log.lines().filter((line) -> line.startsWith("\tat ")).count();
	}

	private static int count(JdbcTemplate jdbc, String sql) {
		return jdbc.queryForObject(sql, Integer.class);
	}

	/** Enqueues one task per transaction, as fast as a little pause allows, and keeps what each call did. */
	static final class Producer implements Runnable {

		final AtomicBoolean running = new AtomicBoolean(true);

		final Set<Integer> enqueued = ConcurrentHashMap.newKeySet();

		final Set<Integer> failedBeforeCommit = ConcurrentHashMap.newKeySet();

		final ConcurrentHashMap<Integer, String> failedOnCommit = new ConcurrentHashMap<>();

		private final TaskQueue taskQueue;

		private final TransactionTemplate transactions;

		private final AtomicLong sequence = new AtomicLong();

		Producer(ConfigurableApplicationContext context) {
			this.taskQueue = context.getBean(TaskQueue.class);
			this.transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
		}

		@Override
		public void run() {
			while (this.running.get()) {
				int seq = (int) this.sequence.incrementAndGet();
				AtomicBoolean inserted = new AtomicBoolean();
				try {
					this.transactions.executeWithoutResult((status) -> {
						this.taskQueue.enqueue("business", seq);
						inserted.set(true);
					});
					this.enqueued.add(seq);
				}
				catch (RuntimeException ex) {
					if (inserted.get()) {
						this.failedOnCommit.put(seq, ex.toString());
					}
					else {
						this.failedBeforeCommit.add(seq);
					}
				}
				try {
					Thread.sleep(5);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		BusinessHandler businessHandler(JdbcTemplate jdbc) {
			return new BusinessHandler(jdbc);
		}

	}

	static class BusinessHandler {

		private final JdbcTemplate jdbc;

		BusinessHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "business")
		void handle(int seq, TaskContext context) {
			this.jdbc.update("INSERT INTO business (seq, task_id) VALUES (?, ?)", seq, context.id());
		}

	}

}
