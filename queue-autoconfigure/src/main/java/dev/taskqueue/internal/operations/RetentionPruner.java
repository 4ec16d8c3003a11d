package dev.taskqueue.internal.operations;

import java.time.Duration;
import java.util.function.ToIntBiFunction;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.PeriodicThread;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Deletes dead letters and history rows older than their retention, and audit log entries older than the dead
 * letters' (an action on a dead letter is kept as long as the dead letter could have been), on a thread of its own so that a long prune
 * never delays a heartbeat or a claim. Each instance prunes; their statements skip the rows another instance is
 * deleting, so they share the work rather than wait for each other or do it twice.
 */
class RetentionPruner implements SmartLifecycle {

	/** Rows per statement: small enough for short locks and little WAL at once, large enough to keep up. */
	static final int BATCH = 1000;

	/**
	 * How long a progress row of no running attempt is kept: one of a running attempt is never deleted here, so this
	 * only needs to outlast the moment between a claim and its first report.
	 */
	static final Duration ORPHANED_PROGRESS = Duration.ofMinutes(1);

	private static final Log logger = LogFactory.getLog(RetentionPruner.class);

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private volatile DatabaseOutage outage = new DatabaseOutage();

	/** Says failures to reach the database through {@code outage}, shared by the instance's background loops. */
	void reportOutagesTo(DatabaseOutage outage) {
		this.outage = outage;
	}

	private final RetentionRepository retention;

	private final Duration deadLetters;

	private final Duration history;

	private final Duration interval;

	private final PeriodicThread thread;

	private @Nullable ProgressQueries progress;

	private @Nullable ResultRepository results;

	/**
	 * @param dataSource the database whose tables are pruned
	 * @param tables its task tables
	 * @param deadLetters how long dead letters are kept
	 * @param history how long history rows are kept
	 * @param interval how often to prune
	 */
	RetentionPruner(DataSource dataSource, TaskTables tables, Duration deadLetters, Duration history,
			Duration interval) {
		this.retention = new RetentionRepository(dataSource, tables);
		this.deadLetters = deadLetters;
		this.history = history;
		this.interval = interval;
		this.thread = new PeriodicThread("tq-retention", interval, interval, this::prune);
	}

	/**
	 * Also deletes the results kept longer than the history's retention, whether the history is on or not, and the
	 * progress rows of attempts whose worker died before it could delete them.
	 */
	RetentionPruner pruningProgressAndResults(ProgressQueries progress, ResultRepository results) {
		this.progress = progress;
		this.results = results;
		return this;
	}

	@Override
	public void start() {
		this.thread.start();
	}

	@Override
	public void stop() {
		this.thread.stop();
	}

	@Override
	public boolean isRunning() {
		return this.thread.isRunning();
	}

	/**
	 * Prunes until nothing is older than its retention.
	 * @return how many dead letters, history rows and audit log entries were deleted
	 */
	int prune() {
		long tried = System.nanoTime();
		try {
			int dead = pruneAll(this.retention::pruneDead, this.deadLetters);
			int completed = pruneAll(this.retention::pruneHistory, this.history);
			if (this.results != null) {
				completed += pruneAll(this.results::prune, this.history);
			}
			if (this.progress != null) {
				pruneAll(this.progress::prune, ORPHANED_PROGRESS);
			}
			int audit = pruneAll(this.retention::pruneAudit, this.deadLetters);
			if (dead + completed + audit > 0 && logger.isDebugEnabled()) {
				logger.debug("Deleted " + dead + " dead letters and " + audit + " audit log entries older than "
						+ this.deadLetters + " and " + completed + " history rows older than " + this.history);
			}
			this.outage.succeeded(tried);
			return dead + completed + audit;
		}
		catch (RuntimeException ex) {
			if (!this.outage.failed("delete old dead letters and history", ex)) {
				logger.warn("Could not delete old TaskQueue dead letters or history, trying again in "
						+ this.interval + ": " + ex);
			}
			return 0;
		}
	}

	private int pruneAll(ToIntBiFunction<Duration, Integer> statement, Duration keep) {
		int total = 0;
		int deleted;
		do {
			deleted = statement.applyAsInt(keep, BATCH);
			total += deleted;
		}
		while (deleted == BATCH && !Thread.currentThread().isInterrupted());
		return total;
	}

}
