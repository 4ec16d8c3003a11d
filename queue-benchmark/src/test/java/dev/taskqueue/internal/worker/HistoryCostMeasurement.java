package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A rough A/B of what {@code taskqueue.history.enabled} costs: drains 5,000 no-op tasks with and without the history,
 * alternating, and prints the throughput of each run. Not part of the build (the name does not end in Tests); run it
 * with {@code ./mvnw -B install -DskipTests && ./mvnw -B -pl queue-benchmark test -Dtest=HistoryCostMeasurement
 * -Drounds=8}. The embedded PostgreSQL runs with {@code fsync=off}, which makes the extra row look as expensive as it
 * can. The benchmark's workloads are the place for numbers to quote; this one only sizes the effect.
 */
class HistoryCostMeasurement {

	private static final int TASKS = 5_000;

	private static final int ROUNDS = Integer.getInteger("rounds", 5);

	@Test
	void drainWithAndWithoutHistory() {
		drain(false); // warm-up: JIT, embedded PostgreSQL caches
		drain(true);
		List<String> results = new ArrayList<>();
		for (int round = 1; round <= ROUNDS; round++) {
			for (boolean history : new boolean[] { false, true }) {
				results.add("round " + round + ", history " + (history ? "on " : "off") + ": "
						+ Math.round(drain(history)) + " tasks/s");
			}
		}
		results.forEach((line) -> System.out.println("HISTORY COST " + line));
	}

	/** The completion statement alone, one transaction each, single-threaded: the database's side of the cost. */
	@Test
	void completionStatementWithAndWithoutHistory() {
		completeOneByOne(false);
		completeOneByOne(true);
		List<String> results = new ArrayList<>();
		for (int round = 1; round <= ROUNDS; round++) {
			for (boolean history : new boolean[] { false, true }) {
				results.add("round " + round + ", history " + (history ? "on " : "off") + ": "
						+ Math.round(completeOneByOne(history)) + " µs per completion");
			}
		}
		results.forEach((line) -> System.out.println("COMPLETION COST " + line));
	}

	private static double completeOneByOne(boolean history) {
		DataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		TaskRepository tasks = new TaskRepository(dataSource, tables, history);
		EnqueueRepository enqueue = new EnqueueRepository(dataSource, tables);
		UUID session = UUID.randomUUID();
		new SessionRepository(dataSource, tables).register(session, "measurement");
		List<ClaimedTask> claimed = new ArrayList<>();
		for (int from = 0; from < TASKS; from += 1000) {
			enqueue.insertAll(IntStream.range(from, from + 1000)
				.mapToObj((i) -> new NewTask(UUID.randomUUID(), "cost", "{\"number\": " + i
						+ ", \"text\": \"some text to make the payload realistic\"}", 0, null, null))
				.toList());
			claimed.addAll(tasks.claim(TaskClaims.Request.of("cost", session, 1000)).claimed());
		}
		try (Connection connection = dataSource.getConnection()) {
			SingleConnectionDataSource single = new SingleConnectionDataSource(connection, true);
			TaskRepository onOneConnection = new TaskRepository(single, tables, history);
			long start = System.nanoTime();
			for (ClaimedTask task : claimed) {
				onOneConnection.complete(task);
			}
			return (System.nanoTime() - start) / 1e3 / claimed.size();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static double drain(boolean history) {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.history.enabled=" + history, "taskqueue.worker.concurrency=8",
				"spring.datasource.hikari.maximum-pool-size=12", "taskqueue.worker.heartbeat-interval=100ms",
				"logging.level.dev.taskqueue=warn")) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			operations.pause("cost");
			sleep(Duration.ofMillis(300));
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			for (int from = 0; from < TASKS; from += 1000) {
				taskQueue.enqueueAll(IntStream.range(from, from + 1000)
					.mapToObj((i) -> TaskRequest.of("cost", new Payload(i, "some text to make the payload realistic")))
					.toList());
			}
			Probe probe = context.getBean(Probe.class);
			operations.resume("cost");
			Await.until("all tasks are completed", Duration.ofMinutes(5), () -> probe.completed.get() == TASKS);
			return TASKS / ((probe.lastCompletion.get() - probe.firstStart.get()) / 1e9);
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	record Payload(int number, String text) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Probe probe() {
			return new Probe();
		}

	}

	/** Handles the tasks and times the drain from the first handler start to the last completion. */
	static class Probe implements TaskQueueListener {

		final AtomicLong firstStart = new AtomicLong();

		final AtomicLong lastCompletion = new AtomicLong();

		final AtomicInteger completed = new AtomicInteger();

		@TaskHandler(queue = "cost")
		void handle(Payload payload) {
		}

		@Override
		public void started(TaskContext task, Duration pickupLatency) {
			this.firstStart.compareAndSet(0, System.nanoTime());
		}

		@Override
		public void completed(TaskContext task, Duration duration) {
			this.lastCompletion.set(System.nanoTime());
			this.completed.incrementAndGet();
		}

	}

}
