package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What W9's claims met in the server, read on a connection of its own to the scratch database:
 * <ul>
 * <li>every 10 ms during the drain, what the database's active backends wait for ({@code pg_stat_activity}):
 * on a page's content lock (an index or heap page: where many claims at the head of one index queue), on another
 * lightweight lock (mostly the WAL's), on a heavyweight lock (a row or transaction: SKIP LOCKED should leave none), on I/O
 * (WAL flushes of the commits), or nothing (running);</li>
 * <li>after the drain, with {@code pg_stat_statements} when the server loads it: how many claim statements ran, the
 * tasks per claim (a short or empty claim lowers it) and a claim's mean time in the server;</li>
 * <li>the ready index's entries read per task ({@code pg_stat_user_indexes.idx_tup_read}): each entry a claim reads
 * and does not take (locked by another claim, or dead) adds to it.</li>
 * </ul>
 */
final class ContentionSampler implements AutoCloseable {

	private static final String WAITS = """
			SELECT coalesce(wait_event_type, 'CPU'), coalesce(wait_event, ''), count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND state = 'active' AND backend_type = 'client backend'
			  AND pid <> pg_backend_pid()
			GROUP BY 1, 2
			""";

	private static final String CLAIMS = """
			SELECT coalesce(sum(calls), 0), coalesce(sum(rows), 0), coalesce(sum(total_exec_time), 0)
			FROM pg_stat_statements
			WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
			  AND query LIKE '%ready AS MATERIALIZED%'
			""";

	private static final String INDEX_READS = """
			SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes
			WHERE indexrelname IN ('taskqueue_task_ready_idx', 'taskqueue_task_ready_bucket_idx')
			""";

	private static final String OTHER_BACKENDS = """
			SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
			""";

	private final Connection connection;

	private final boolean statements;

	private volatile boolean sampling;

	private Thread thread;

	private long active;

	/** Samples by wait event ({@code type:event}, {@code CPU:} for none). */
	private final Map<String, Long> events = new ConcurrentHashMap<>();

	private long pageLock;

	private long lwlock;

	private long lock;

	private long io;

	ContentionSampler(ScratchDatabase database) {
		this.connection = database.connect();
		this.statements = statementsAvailable();
	}

	void start() {
		this.sampling = true;
		this.thread = new Thread(this::sample, "w9-contention-sampler");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	void stop() {
		this.sampling = false;
		try {
			this.thread.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void sample() {
		try (PreparedStatement waits = this.connection.prepareStatement(WAITS)) {
			while (this.sampling) {
				try (ResultSet rows = waits.executeQuery()) {
					while (rows.next()) {
						long count = rows.getLong(3);
						this.active += count;
						this.events.merge(rows.getString(1) + ":" + rows.getString(2), count, Long::sum);
						switch (rows.getString(1)) {
							case "LWLock" -> {
								if (rows.getString(2).equalsIgnoreCase("BufferContent")
										|| rows.getString(2).equalsIgnoreCase("buffer_content")) {
									this.pageLock += count;
								}
								else {
									this.lwlock += count;
								}
							}
							case "Lock" -> this.lock += count;
							case "IO" -> this.io += count;
							default -> {
							}
						}
					}
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not sample pg_stat_activity: " + ex.getMessage(), ex);
		}
	}

	/** The most frequent wait events of the active backends, with their shares of the samples, for the report. */
	String topEvents(int count) {
		double samples = Math.max(1, this.active);
		return this.events.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.limit(count)
			.map((entry) -> String.format(java.util.Locale.ROOT, "%s=%.2f", entry.getKey(), entry.getValue() / samples))
			.collect(Collectors.joining(" "));
	}

	/** What the drain met; call it once the workers have closed, so that their backends have flushed statistics. */
	Contention result() {
		try (Statement statement = this.connection.createStatement()) {
			awaitOthersGone(statement);
			statement.execute("SELECT pg_stat_clear_snapshot()");
			long indexReads = single(statement, INDEX_READS);
			long claims = -1;
			long claimed = 0;
			double claimMillis = 0;
			if (this.statements) {
				try (ResultSet rows = statement.executeQuery(CLAIMS)) {
					rows.next();
					claims = rows.getLong(1);
					claimed = rows.getLong(2);
					claimMillis = rows.getDouble(3);
				}
			}
			return new Contention(this.active, this.pageLock, this.lwlock, this.lock, this.io, indexReads, claims, claimed,
					claimMillis);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the statistics: " + ex.getMessage(), ex);
		}
	}

	private static void awaitOthersGone(Statement statement) throws SQLException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (single(statement, OTHER_BACKENDS) > 0 && System.nanoTime() < deadline) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		}
	}

	private boolean statementsAvailable() {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
			statement.executeQuery("SELECT count(*) FROM pg_stat_statements").close();
			return true;
		}
		catch (SQLException ex) {
			return false; // not loaded by this server (shared_preload_libraries): those figures are left out
		}
	}

	private static long single(Statement statement, String sql) throws SQLException {
		try (ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getLong(1);
		}
	}

	@Override
	public void close() {
		this.sampling = false;
		try {
			this.connection.close();
		}
		catch (SQLException ex) {
			// nothing to keep
		}
	}

	/**
	 * @param active samples of active backends; the next four are those waiting on a page's content lock (an
	 * index or heap page many claims read at once), on another lightweight lock (mostly the WAL's), on a
	 * heavyweight lock (row or transaction), and on I/O
	 * @param claims claim statements run, -1 without {@code pg_stat_statements}
	 * @param claimedRows rows they returned (with BATCHED, the completions they deleted too)
	 * @param claimMillis their total time in the server
	 */
	record Contention(long active, long pageLock, long lwlock, long lock, long io, long indexReads, long claims, long claimedRows,
			double claimMillis) {

		List<Metric> metrics(int tasks) {
			List<Metric> metrics = new ArrayList<>();
			double samples = Math.max(1, this.active);
			metrics.add(Metric.ratio("page-lock-waits", this.pageLock / samples));
			metrics.add(Metric.ratio("other-lwlock-waits", this.lwlock / samples));
			metrics.add(Metric.ratio("lock-waits", this.lock / samples));
			metrics.add(Metric.ratio("io-waits", this.io / samples));
			metrics.add(Metric.ratio("index-reads/task", (double) this.indexReads / tasks));
			if (this.claims >= 0) {
				metrics.add(Metric.count("claims", this.claims));
				metrics.add(Metric.ratio("tasks/claim", (double) tasks / Math.max(1, this.claims)));
				metrics.add(new Metric("claim-time", this.claimMillis * 1000 / Math.max(1, this.claims), "us"));
			}
			return metrics;
		}

	}

}
