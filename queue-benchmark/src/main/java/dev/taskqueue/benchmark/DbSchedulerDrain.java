package dev.taskqueue.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;

/**
 * db-scheduler as a contender of W1: N no-op one-time tasks scheduled at once with its batch API (untimed), then
 * one scheduler, timed from its start until its table is empty. It gets its own connection pool of the worker's
 * size and as many threads as the worker's concurrency; {@link #NAME} runs it with its high-throughput settings
 * (lock-and-fetch polling), {@link #DEFAULTS_NAME} as it comes (everything else its defaults: fetch polling with
 * limits 0.5/3.0 and a polling interval of 10 s).
 */
final class DbSchedulerDrain {

	/** Tuned: lock-and-fetch. */
	static final String NAME = "db-scheduler";

	/** As it comes: only its threads and pool set. */
	static final String DEFAULTS_NAME = "db-scheduler-defaults";

	/** Its table's DDL, from db-scheduler's repository. */
	private static final String TABLES = "/db-scheduler/postgresql_tables.sql";

	private static final String ANY_LEFT = "SELECT EXISTS (SELECT 1 FROM scheduled_tasks)";

	/**
	 * Lock-and-fetch claims {@code upper × threads − running} executions per round and fetches again once fewer
	 * than {@code lower × threads} are left: 0.5 is its default lower limit. The upper limit is
	 * {@code --db-scheduler-upper-limit}: 4 by default (its own default is 1), which keeps a batch of work ready, as
	 * its own throughput tests do (20 threads, 4.0 and 20.0).
	 */
	static final double LOWER_LIMIT = 0.5;

	/** Only matters when a poll finds nothing: with lock-and-fetch, a finished batch triggers the next poll. */
	static final Duration POLLING_INTERVAL = Duration.ofMillis(100);

	private static final String TASK_NAME = "bench-noop";

	private DbSchedulerDrain() {
	}

	/** What the contender's results are labelled with; {@code upperLimit} 0 for {@link #DEFAULTS_NAME}. */
	static String describe(int threads, int poolSize, double upperLimit) {
		if (upperLimit == 0) {
			return "contender=" + DEFAULTS_NAME + " threads=" + threads + " pool=" + poolSize + " does=[db-scheduler "
					+ "16.12 as it comes: " + SchedulerBuilder.DEFAULT_POLLING_STRATEGY.describe() + ", polling "
					+ SchedulerBuilder.DEFAULT_POLLING_INTERVAL.toSeconds() + "s, one-time no-op task]";
		}
		return "contender=" + NAME + " threads=" + threads + " pool=" + poolSize + " does=[db-scheduler 16.12, "
				+ "lock-and-fetch " + LOWER_LIMIT + "/" + upperLimit + ", polling " + POLLING_INTERVAL.toMillis()
				+ "ms, one-time no-op task]";
	}

	/** Creates db-scheduler's table in {@code database} and schedules {@code tasks} due executions. */
	static void schedule(ScratchDatabase database, int tasks) {
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			statement.execute(ddl());
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create db-scheduler's table: " + ex.getMessage(), ex);
		}
		try (HikariDataSource dataSource = PeerDrains.pool(database, NAME, 2)) {
			OneTimeTask<Long> task = task(new AtomicLong());
			SchedulerClient client = SchedulerClient.Builder.create(dataSource, task).build();
			List<TaskInstance<?>> instances = new ArrayList<>(tasks);
			for (long seq = 0; seq < tasks; seq++) {
				instances.add(task.instance("task-" + seq, seq));
			}
			client.scheduleBatch(instances, Instant.now());
		}
	}

	/**
	 * Starts a scheduler on {@code database} and times it until all {@code tasks} have run and been removed;
	 * {@code upperLimit} 0 runs it as it comes ({@link #DEFAULTS_NAME}).
	 */
	static Timing drain(ScratchDatabase database, int tasks, int threads, int poolSize, double upperLimit) {
		AtomicLong handled = new AtomicLong();
		try (HikariDataSource dataSource = PeerDrains.pool(database, NAME, poolSize);
				Connection probe = database.connect();
				PreparedStatement anyLeft = probe.prepareStatement(ANY_LEFT)) {
			SchedulerBuilder builder = Scheduler.create(dataSource, task(handled)).threads(threads);
			if (upperLimit != 0) {
				builder.pollUsingLockAndFetch(LOWER_LIMIT, upperLimit).pollingInterval(POLLING_INTERVAL);
			}
			Scheduler scheduler = builder.build();
			long start = System.nanoTime();
			long startCpu = Timing.otherThreadsCpuNow();
			scheduler.start();
			try {
				PeerDrains.awaitHandled(handled, tasks, "db-scheduler");
				PeerDrains.awaitNoneLeft(anyLeft, "db-scheduler");
				return Timing.sinceOnOtherThreads(start, startCpu);
			}
			finally {
				scheduler.stop();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not watch db-scheduler's table: " + ex.getMessage(), ex);
		}
	}

	private static OneTimeTask<Long> task(AtomicLong handled) {
		return Tasks.oneTime(TASK_NAME, Long.class).execute((instance, context) -> handled.incrementAndGet());
	}

	private static String ddl() {
		try (InputStream in = DbSchedulerDrain.class.getResourceAsStream(TABLES)) {
			if (in == null) {
				throw new IllegalStateException(TABLES + " is missing from the benchmark's classpath");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
