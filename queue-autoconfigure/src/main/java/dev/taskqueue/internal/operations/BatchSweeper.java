package dev.taskqueue.internal.operations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.DependencyRepository;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.PeriodicThread;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.transaction.support.TransactionOperations;

/**
 * Finishes the batches none of whose tasks is left and enqueues their {@code then} tasks. Every instance with a
 * worker sweeps; one statement finishes a batch exactly once, whichever instances sweep at the same moment.
 * <p>
 * Completions do not report to their batch (that would make every completion of a batch update one row, and the
 * workers wait for each other there), so a batch is found done by looking: every {@code fast} interval while some
 * batch is open (as of the last look, or because one was enqueued here since), else every {@code slow} interval.
 * A {@code then} task therefore follows the batch's last task within about one fast interval, and after a crash
 * of the instance that ran it as well.
 * <p>
 * The same sweep releases the tasks that wait for other tasks ({@code TaskRequest.withDependsOn}) once none of
 * those is waiting or running any more, for the same reason: completions do not look for dependents.
 */
class BatchSweeper implements SmartLifecycle {

	/** Batches finished per statement. */
	static final int LIMIT = 100;

	private static final Log logger = LogFactory.getLog(BatchSweeper.class);

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private volatile DatabaseOutage outage = new DatabaseOutage();

	/** Says failures to reach the database through {@code outage}, shared by the instance's background loops. */
	void reportOutagesTo(DatabaseOutage outage) {
		this.outage = outage;
	}

	private final BatchRepository batches;

	private final DependencyRepository dependencies;

	private final TransactionOperations transactions;

	private final long slowNanos;

	private final Duration keepFinished;

	private final PeriodicThread thread;

	private volatile boolean open = true;

	private long lastSlowLook;

	/**
	 * @param transactions transactions of their own for the sweep
	 * @param fast how often to look while a batch is open
	 * @param slow how often to look while none is
	 * @param keepFinished how long finished batches are kept for their progress to be read
	 */
	BatchSweeper(BatchRepository batches, DependencyRepository dependencies, TransactionOperations transactions,
			Duration fast, Duration slow, Duration keepFinished) {
		this.batches = batches;
		this.dependencies = dependencies;
		this.transactions = transactions;
		this.slowNanos = slow.toNanos();
		this.keepFinished = keepFinished;
		this.thread = new PeriodicThread("tq-batches", fast, fast, this::tick);
		this.lastSlowLook = System.nanoTime() - this.slowNanos;
	}

	/** A batch, or a task waiting for others, was enqueued here: look at every fast interval again. */
	void batchEnqueued() {
		this.open = true;
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

	private void tick() {
		boolean slowLook = System.nanoTime() - this.lastSlowLook >= this.slowNanos;
		if (!this.open && !slowLook) {
			return;
		}
		long tried = System.nanoTime();
		try {
			sweep();
			if (slowLook) {
				this.lastSlowLook = System.nanoTime();
				this.transactions.execute((status) -> this.batches.pruneFinished(this.keepFinished, 1000));
			}
			this.outage.succeeded(tried);
		}
		catch (RuntimeException ex) {
			// Tried again at the next slow look: a missing table or grant must not fill the log at the fast pace.
			this.lastSlowLook = System.nanoTime();
			if (!this.outage.failed("look for finished batches", ex)) {
				logger.warn("Could not look for finished TaskQueue batches and prerequisites, trying again in "
						+ Duration.ofNanos(this.slowNanos) + ": " + ex);
			}
		}
	}

	/**
	 * Releases every task whose prerequisites are done now, then finishes every batch that is done now.
	 * @return the ids of the {@code then} tasks enqueued
	 */
	List<UUID> sweep() {
		// Cleared before looking: a batch enqueued here meanwhile keeps the sweep fast.
		this.open = false;
		releaseDependents();
		List<UUID> enqueued = new ArrayList<>();
		List<UUID> round;
		do {
			round = this.transactions.execute((status) -> this.batches.finishDone(LIMIT));
			enqueued.addAll(round);
		}
		while (round.size() == LIMIT);
		if (Boolean.TRUE.equals(this.transactions.execute((status) -> this.batches.anyOpen()))
				|| Boolean.TRUE.equals(this.transactions.execute((status) -> this.dependencies.anyWaiting()))) {
			this.open = true;
		}
		if (!enqueued.isEmpty() && logger.isDebugEnabled()) {
			logger.debug("Finished " + enqueued.size() + " TaskQueue batches, enqueued their then tasks " + enqueued);
		}
		return enqueued;
	}

	/**
	 * Releases every task waiting for others none of which is waiting or running any more: it becomes due, or goes
	 * to the dead letters when one of them is dead and its policy says so.
	 * @return how many tasks were released
	 */
	int releaseDependents() {
		int released = 0;
		DependencyRepository.Released round;
		do {
			round = this.transactions.execute((status) -> this.dependencies.release(LIMIT));
			released += round.count();
			if (!round.dead().isEmpty()) {
				logger.info("Sent " + round.dead().size() + " TaskQueue tasks to the dead letters without running "
						+ "them: a task they depend on is in the dead letters " + round.dead());
			}
		}
		while (round.count() == LIMIT);
		return released;
	}

}
