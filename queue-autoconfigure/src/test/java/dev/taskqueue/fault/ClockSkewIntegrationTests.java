package dev.taskqueue.fault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Two worker processes whose JVM clocks are ten minutes ahead and ten minutes behind (libfaketime) share the work
 * without expiring each other, stealing or losing a task, or running a delayed task early: liveness and due times
 * are judged on the database clock only.
 */
class ClockSkewIntegrationTests {

	private static final List<Path> LIBFAKETIME = Stream
		.of("x86_64-linux-gnu", "aarch64-linux-gnu", "")
		.map((arch) -> Path.of("/usr/lib", arch, "faketime", "libfaketime.so.1"))
		.toList();

	private static final Duration SKEW = Duration.ofMinutes(10);

	private static final Duration DELAY = Duration.ofSeconds(4);

	private static final int TASKS = 2_000;

	private static final int DELAYED = 50;

	private final List<ForkedWorker> workers = new ArrayList<>();

	@AfterEach
	void killWorkers() {
		this.workers.forEach(ForkedWorker::close);
	}

	@Test
	void workersWithSkewedClocksNeitherStealNorLoseTasks() {
		Optional<Path> libfaketime = LIBFAKETIME.stream().filter(Files::isReadable).findFirst();
		assumeThat(libfaketime).as("libfaketime (Debian package faketime) is installed").isPresent();
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			JdbcTemplate jdbc = producer.getBean(JdbcTemplate.class);
			jdbc.execute(WorkerProcess.BUSINESS_TABLE);
			// Sessions time out after 4 s, not 2, so that a loaded machine's late heartbeat does not look like an
			// expiry the skew caused; the skew, ten minutes, dwarfs either.
			String[] settings = { "taskqueue.worker.session-timeout=4s", "taskqueue.worker.heartbeat-interval=500ms",
					"taskqueue.worker.concurrency=4", "spring.datasource.hikari.maximum-pool-size=6" };
			ForkedWorker ahead = fork("ahead", url, libfaketime.get(), "+10m", settings);
			ForkedWorker behind = fork("behind", url, libfaketime.get(), "-10m", settings);
			ahead.awaitStarted(Duration.ofSeconds(90));
			behind.awaitStarted(Duration.ofSeconds(90));
			System.out.println("MEASURED: JVM clock minus database clock: ahead " + ahead.clockSkew().toMillis()
					+ " ms, behind " + behind.clockSkew().toMillis() + " ms");
			assertThat(ahead.clockSkew()).isBetween(SKEW.minusSeconds(30), SKEW.plusSeconds(30));
			assertThat(behind.clockSkew()).isBetween(SKEW.negated().minusSeconds(30), SKEW.negated().plusSeconds(30));

			TaskQueue taskQueue = producer.getBean(TaskQueue.class);
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < TASKS; i++) {
				requests.add((i < DELAYED) ? TaskRequest.of("business", -i - 1).withDelay(DELAY)
						: TaskRequest.of("business", i));
			}
			taskQueue.enqueueAll(requests);
			long start = System.nanoTime();
			AtomicInteger fewestSessions = new AtomicInteger(Integer.MAX_VALUE);
			// At least three session timeouts, so that a clock-based expiry would have happened.
			Await.until("every task is done", Duration.ofSeconds(90), () -> {
				fewestSessions.accumulateAndGet(count(jdbc, "SELECT count(*) FROM taskqueue_session"), Math::min);
				return count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0
						&& System.nanoTime() - start > Duration.ofSeconds(12).toNanos();
			});

			assertThat(fewestSessions.get()).as("both sessions stayed alive throughout").isEqualTo(2);
			assertThat(count(jdbc, "SELECT count(*) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(DISTINCT task_id) FROM business")).isEqualTo(TASKS);
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE attempt <> 1")).as("no task ran twice")
				.isZero();
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isZero();
			assertThat(jdbc.queryForList("SELECT DISTINCT worker FROM business ORDER BY worker", String.class))
				.as("both workers took part").containsExactly("ahead", "behind");
			String delayed = "SELECT count(*) FROM business "
					+ "WHERE n < 0 AND done_at %s enqueued_at + ? * interval '1 ms'";
			assertThat(count(jdbc, delayed.formatted("<"), DELAY.toMillis())).as("no delayed task ran early").isZero();
			// Left behind by the skew would be ten minutes late; a loaded machine can be some seconds late.
			assertThat(count(jdbc, delayed.formatted(">"), DELAY.plusSeconds(60).toMillis()))
				.as("no delayed task was left behind")
				.isZero();
			for (ForkedWorker worker : List.of(ahead, behind)) {
				assertThat(worker.linesContaining("was expired by another instance")).isZero();
				assertThat(worker.linesContaining("of expired TaskQueue sessions")).isZero();
			}
		}
	}

	private ForkedWorker fork(String name, String url, Path libfaketime, String offset, String... settings) {
		// Not FAKETIME_DONT_FAKE_MONOTONIC=1: it makes every clock read of the JVM slow. A fixed offset on the
		// monotonic clock does no harm, since the JVM only ever subtracts its readings.
		ForkedWorker worker = ForkedWorker.start(name, url,
				Map.of("LD_PRELOAD", libfaketime.toString(), "FAKETIME", offset), settings);
		this.workers.add(worker);
		return worker;
	}

	private static int count(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.queryForObject(sql, Integer.class, args);
	}

}
