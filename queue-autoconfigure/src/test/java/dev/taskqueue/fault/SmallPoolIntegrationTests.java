package dev.taskqueue.fault;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With a connection pool smaller than the worker's concurrency, the worker caps its handlers at the pool size minus
 * its own connections (1 for its bookkeeping, plus 1 for LISTEN) and says so, neither deadlocks nor spins, and
 * finishes every task; throughput degrades with the pool, not worse.
 */
@ExtendWith(OutputCaptureExtension.class)
class SmallPoolIntegrationTests {

	private static final int TASKS = 300;

	private static final String CAPPED = "The queues' concurrency adds up to 8 but the connection pool leaves room "
			+ "for 1 handlers";

	private static final Pattern LIMIT = Pattern.compile("at most (\\d+) handlers at once \\(connection pool\\)");

	static final AtomicInteger running = new AtomicInteger();

	static final AtomicInteger mostRunning = new AtomicInteger();

	@Test
	void poolOfTwoRunsOneHandlerAtATimeAndFinishesEveryTask(CapturedOutput output) {
		Run run = run(2);
		assertThat(run.mostRunning()).isEqualTo(1);
		assertThat(output).contains("WARN").contains(CAPPED).contains("TaskQueue runs at most 1 at once");
		Run large = run(10);
		Matcher limit = LIMIT.matcher(output.toString());
		assertThat(limit.find() && limit.find()).as("the pool of 10 also limits the handlers").isTrue();
		assertThat(Integer.parseInt(limit.group(1))).as("pool size minus the worker's own 1, or 2 with LISTEN")
			.isBetween(8, 9);
		assertThat(large.mostRunning()).isBetween(2, Integer.parseInt(limit.group(1)));
		System.out.println("MEASURED: small pool, slow database (pg_sleep 5 ms per task, concurrency 8): pool 2 "
				+ run.tasksPerSecond() + " tasks/s (claim loop CPU " + run.claimCpuPercent() + " %), pool 10 "
				+ large.tasksPerSecond() + " tasks/s (claim loop CPU " + large.claimCpuPercent() + " %)");
		assertThat(run.claimCpuPercent()).as("the claim loop does not spin").isLessThan(25);
		assertThat(output).doesNotContain("Could not claim tasks").doesNotContain("heartbeat failed")
			.doesNotContain("Connection is not available");
	}

	@Test
	void poolOfThreePollsAndLeavesRoomForTwoHandlers(CapturedOutput output) {
		assertThat(run(3).mostRunning()).isEqualTo(2);
		assertThat(output).contains("is too small to keep one for LISTEN")
			.contains("The queues' concurrency adds up to 8 but the connection pool leaves room for 2 handlers")
			.contains("TaskQueue runs at most 2 at once")
			.doesNotContain("Connection is not available");
	}

	private static Run run(int poolSize) {
		running.set(0);
		mostRunning.set(0);
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "spring.datasource.hikari.maximum-pool-size=" + poolSize,
				"taskqueue.worker.concurrency=8")) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE business (n int PRIMARY KEY)");
			List<TaskRequest> requests = new ArrayList<>();
			for (int n = 0; n < TASKS; n++) {
				requests.add(TaskRequest.of("slow-db", n));
			}
			long claimCpuBefore = claimLoopCpuNanos();
			long start = System.nanoTime();
			context.getBean(TaskQueue.class).enqueueAll(requests);
			Await.until("every task is done with a pool of " + poolSize, Duration.ofSeconds(60),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			long elapsed = System.nanoTime() - start;
			long claimCpu = claimLoopCpuNanos() - claimCpuBefore;
			assertThat(jdbc.queryForObject("SELECT count(*) FROM business", Integer.class)).isEqualTo(TASKS);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
			return new Run(mostRunning.get(), TASKS * 1_000_000_000L / elapsed, 100 * claimCpu / elapsed);
		}
	}

	/** CPU time of the claim loop threads; only one worker runs at a time here. */
	private static long claimLoopCpuNanos() {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().startsWith("tq-claim-"))
			.mapToLong((thread) -> Math.max(0, threads.getThreadCpuTime(thread.getId())))
			.sum();
	}

	record Run(int mostRunning, long tasksPerSecond, long claimCpuPercent) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		SlowDatabaseHandler slowDatabaseHandler(JdbcTemplate jdbc) {
			return new SlowDatabaseHandler(jdbc);
		}

	}

	static class SlowDatabaseHandler {

		private final JdbcTemplate jdbc;

		SlowDatabaseHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "slow-db")
		void handle(int n) {
			mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
			try {
				this.jdbc.queryForList("SELECT pg_sleep(0.005)");
				this.jdbc.update("INSERT INTO business (n) VALUES (?)", n);
			}
			finally {
				running.decrementAndGet();
			}
		}

	}

}
