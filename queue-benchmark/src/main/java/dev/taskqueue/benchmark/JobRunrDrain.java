package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import com.zaxxer.hikari.HikariDataSource;
import org.jobrunr.configuration.JobRunr;
import org.jobrunr.configuration.JobRunrConfiguration.JobRunrConfigurationResult;
import org.jobrunr.jobs.lambdas.JobRequest;
import org.jobrunr.jobs.lambdas.JobRequestHandler;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.server.BackgroundJobServerConfiguration;
import org.jobrunr.storage.StorageProvider;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;
import org.jobrunr.utils.mapper.jackson3.Jackson3JsonMapper;

/**
 * JobRunr (open source) as a contender of W1: N no-op jobs enqueued as job requests with its batch API (untimed),
 * then one background job server, timed from its start until every job is {@code SUCCEEDED} (JobRunr keeps
 * succeeded jobs for 36 hours; a succeeded job is a finished one). Configured from its fluent API the way its
 * documentation sets a server up for throughput: as many workers as the worker's concurrency, the shortest poll
 * interval it accepts on SQL (5 s; with jobs waiting a worker that goes idle fetches the next ones at once, so the
 * interval matters only for the first fetch, 1 s after the start), Jackson 3 (already on this class path), no
 * dashboard, and a HikariCP pool of the worker's size.
 */
final class JobRunrDrain {

	static final String NAME = "jobrunr";

	static final int POLL_INTERVAL_SECONDS = 5;

	private static final String NOT_SUCCEEDED = "SELECT EXISTS (SELECT 1 FROM jobrunr_jobs WHERE state <> 'SUCCEEDED')";

	private JobRunrDrain() {
	}

	/** What the contender's results are labelled with. */
	static String describe(int threads, int poolSize) {
		return "contender=" + NAME + " threads=" + threads + " pool=" + poolSize + " does=[JobRunr 8.7.0 OSS, "
				+ "PostgresStorageProvider, " + threads + " workers, poll interval " + POLL_INTERVAL_SECONDS
				+ "s, Jackson 3, no-op JobRequestHandler]";
	}

	/** Creates JobRunr's tables in {@code database} and enqueues {@code tasks} jobs. */
	static void enqueue(ScratchDatabase database, int tasks) {
		try (HikariDataSource dataSource = PeerDrains.pool(database, NAME, 4)) {
			StorageProvider storage = new PostgresStorageProvider(dataSource);
			try {
				JobRunrConfigurationResult jobRunr = JobRunr.configure()
					.useJsonMapper(new Jackson3JsonMapper())
					.useStorageProvider(storage)
					.initialize();
				jobRunr.getJobRequestScheduler().enqueue(LongStream.range(0, tasks).mapToObj(NoopJob::new));
			}
			finally {
				storage.close();
			}
		}
	}

	/** Starts a background job server on {@code database} and times it until all {@code tasks} jobs succeeded. */
	static Timing drain(ScratchDatabase database, int tasks, int threads, int poolSize) {
		AtomicLong handled = new AtomicLong();
		NoopJobHandler handler = new NoopJobHandler(handled);
		try (HikariDataSource dataSource = PeerDrains.pool(database, NAME, poolSize);
				Connection probe = database.connect();
				PreparedStatement notSucceeded = probe.prepareStatement(NOT_SUCCEEDED)) {
			StorageProvider storage = new PostgresStorageProvider(dataSource);
			try {
				BackgroundJobServer server = JobRunr.configure()
					.useJsonMapper(new Jackson3JsonMapper())
					.useStorageProvider(storage)
					.useJobActivator(new Activator(handler))
					.useBackgroundJobServer(BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration()
						.andWorkerCount(threads)
						.andPollIntervalInSeconds(POLL_INTERVAL_SECONDS), false)
					.initialize()
					.getBackgroundJobServer();
				long start = System.nanoTime();
				long startCpu = Timing.otherThreadsCpuNow();
				server.start();
				try {
					PeerDrains.awaitHandled(handled, tasks, "JobRunr");
					PeerDrains.awaitNoneLeft(notSucceeded, "JobRunr");
					return Timing.sinceOnOtherThreads(start, startCpu);
				}
				finally {
					server.stop();
				}
			}
			finally {
				storage.close();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not watch JobRunr's table: " + ex.getMessage(), ex);
		}
	}

	/** The job: its sequence number, as TaskQueue's {@link BenchTask} carries. */
	public record NoopJob(long seq) implements JobRequest {

		@Override
		public Class<NoopJobHandler> getJobRequestHandler() {
			return NoopJobHandler.class;
		}

	}

	/** Counts the jobs it ran. */
	public static final class NoopJobHandler implements JobRequestHandler<NoopJob> {

		private final AtomicLong handled;

		NoopJobHandler(AtomicLong handled) {
			this.handled = handled;
		}

		@Override
		public void run(NoopJob job) {
			this.handled.incrementAndGet();
		}

	}

	/** Hands JobRunr the one handler of the drain. */
	private record Activator(NoopJobHandler handler) implements org.jobrunr.server.JobActivator {

		@Override
		@SuppressWarnings("unchecked")
		public <T> T activateJob(Class<T> type) {
			return (type == NoopJobHandler.class) ? (T) this.handler : null;
		}

	}

}
