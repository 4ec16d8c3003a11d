package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.taskqueue.TaskQueue;

/**
 * W5: minutes of churn at a fixed rate, once with the xmin horizon free and once pinned by a transaction held open
 * on another connection; throughput, backlog, dead tuples and table size every 10 seconds. The pinned run goes on
 * for up to two minutes after its transaction ends, to show whether what piled up is vacuumed away.
 */
final class BloatWorkload implements Workload {

	private static final long SAMPLE_NANOS = TimeUnit.SECONDS.toNanos(10);

	private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	/** How long the pinned run goes on once its transaction has ended, at most. */
	private static final long RELEASED_SECONDS = 120;

	private final Bench bench;

	BloatWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W5";
	}

	@Override
	public void run() {
		Result free = churn(false);
		this.bench.report().add(free);
		this.bench.report().add(churn(true).comparedWith("xmin-free", free.headline()));
	}

	private Result churn(boolean pinned) {
		Duration duration = this.bench.options().w5Duration();
		int rate = this.bench.options().w5Rate();
		String xmin = pinned ? "pinned" : "free";
		this.bench.report().info("W5 " + duration.toSeconds() + " s of churn at " + rate + " tasks/s, xmin " + xmin);
		Probe probe = new Probe();
		try (ScratchDatabase database = this.bench.database().createScratch();
				LibraryInstance producer = LibraryInstance.producer(database.url(), this.bench.library());
				LibraryInstance worker = LibraryInstance.worker(database.url(), this.bench.library(),
						Mode.TRANSACTIONAL, probe);
				QueueTable table = new QueueTable(database, this.bench.library().taskTable());
				Connection pin = pinned ? pinXmin(database) : null) {
			Churn churn = new Churn(producer.taskQueue(), probe, table, new Pacer(rate), "xmin=" + xmin);
			churn.runFor(duration);
			Result result = churn.result("churn xmin=" + xmin + " seconds=" + duration.toSeconds() + " offered="
					+ rate + "/s config=" + this.bench.options().describeLibraryProperties(), duration);
			if (pin == null) {
				return result;
			}
			// Once the horizon moves on, autovacuum may remove what piled up: churn on and see that it does.
			pin.rollback();
			Duration after = Duration.ofSeconds(Math.min(RELEASED_SECONDS, duration.toSeconds()));
			this.bench.report().info("W5 xmin released: " + after.toSeconds() + " s more of churn");
			churn.runFor(after);
			return result.and(Metric.count("dead-tuples-" + after.toSeconds() + "s-after-release",
					table.stats().dead()));
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not pin or release the xmin horizon: " + ex.getMessage(), ex);
		}
	}

	/** A connection holding a repeatable-read snapshot open, so vacuum can remove no row deleted after it. */
	private static Connection pinXmin(ScratchDatabase database) throws SQLException {
		Connection connection = database.connect();
		connection.setAutoCommit(false);
		connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
		try (Statement statement = connection.createStatement()) {
			statement.execute("SELECT 1");
		}
		return connection;
	}

	/** One churn in progress: what has been enqueued and handled, and a sample every 10 seconds. */
	private final class Churn {

		private final TaskQueue taskQueue;

		private final Probe probe;

		private final QueueTable table;

		private final Pacer pacer;

		private final String label;

		private long enqueued;

		private long handledAtSample;

		private long nextSample;

		private long largest;

		Churn(TaskQueue taskQueue, Probe probe, QueueTable table, Pacer pacer, String label) {
			this.taskQueue = taskQueue;
			this.probe = probe;
			this.table = table;
			this.pacer = pacer;
			this.label = label;
			this.nextSample = pacer.startNanos() + SAMPLE_NANOS;
		}

		void runFor(Duration duration) {
			long end = System.nanoTime() + duration.toNanos();
			for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
				enqueueDue(now);
				LockSupport.parkNanos(TICK_NANOS);
			}
		}

		/** Enqueues what is due by {@code now} with {@code enqueueAll}, and takes a sample when one is due. */
		void enqueueDue(long now) {
			long due = this.pacer.dueAt(now);
			LibraryDrain.enqueueInBatches(this.taskQueue, Mode.TRANSACTIONAL.queue(), this.enqueued,
					due - this.enqueued, LibraryDrain.ENQUEUE_BATCH);
			this.enqueued = due;
			if (now >= this.nextSample) {
				long handled = this.probe.handled();
				QueueTable.TableStats stats = stats();
				BloatWorkload.this.bench.report().sample("W5", String.format(Locale.ROOT,
						"%s t=%ds rate=%.0f/s backlog=%d dead-tuples=%d live-tuples=%d size=%.1fMB autovacuums=%d",
						this.label, TimeUnit.NANOSECONDS.toSeconds(now - this.pacer.startNanos()),
						(handled - this.handledAtSample) * 1e9 / SAMPLE_NANOS, this.enqueued - handled, stats.dead(),
						stats.live(), stats.bytes() / (1024.0 * 1024.0), stats.autovacuums()));
				this.handledAtSample = handled;
				this.nextSample += SAMPLE_NANOS;
			}
		}

		Result result(String label, Duration duration) {
			long handled = this.probe.handled();
			QueueTable.TableStats stats = stats();
			return Result.of("W5", label, Metric.rate(handled, duration.toNanos()),
					Metric.count("backlog", this.enqueued - handled), Metric.count("dead-tuples", stats.dead()),
					Metric.megabytes("max-size", this.largest));
		}

		private QueueTable.TableStats stats() {
			QueueTable.TableStats stats = this.table.stats();
			this.largest = Math.max(this.largest, stats.bytes());
			return stats;
		}

	}

}
