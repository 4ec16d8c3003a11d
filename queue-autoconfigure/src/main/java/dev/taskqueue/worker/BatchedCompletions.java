package dev.taskqueue.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.jdbc.ClaimResult;
import dev.taskqueue.jdbc.ClaimedTask;
import dev.taskqueue.jdbc.TaskRepository;
import dev.taskqueue.support.DatabaseOutage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionOperations;

/**
 * Completions of handlers in {@code BATCHED} mode, deleted together by one statement: by the next claim of the
 * claim loop, which folds them into its own statement ({@link #take}), or by this flusher when {@code maxBatch} are
 * waiting or {@code maxDelay} after the first one came. A handler thread that finds {@code maxPending} completions
 * waiting or being written blocks until a flush makes room, so claiming slows down with the database. Completions
 * that cannot be written (the database is away) are put back and written later.
 */
final class BatchedCompletions {

	private static final Log logger = LogFactory.getLog(BatchedCompletions.class);

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private final DatabaseOutage outage;

	private final TaskRepository tasks;

	private final TransactionOperations transactions;

	private final TaskQueueListener listener;

	private final int maxBatch;

	private final int maxPending;

	private final Duration maxDelay;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private final List<Done> pending = new ArrayList<>();

	private long firstPendingAt;

	/** How many completions were taken and are being written. */
	private int writing;

	private boolean stopping;

	/** Where the flusher's completions hand the next tasks of their keys off to; set once the worker runs. */
	private volatile HandOffs handOffs = HandOffs.NONE;

	BatchedCompletions(TaskRepository tasks, TransactionOperations transactions, TaskQueueListener listener,
			int maxBatch, Duration maxDelay, DatabaseOutage outage) {
		this.tasks = tasks;
		this.outage = outage;
		this.transactions = transactions;
		this.listener = listener;
		this.maxBatch = maxBatch;
		this.maxPending = maxBatch * 4;
		this.maxDelay = maxDelay;
	}

	void handOffTo(HandOffs handOffs) {
		this.handOffs = handOffs;
	}

	/** Adds a completion; blocks while too many are waiting. */
	void add(ClaimedTask task, TaskContext context, Duration duration) throws InterruptedException {
		this.lock.lock();
		try {
			while (this.pending.size() + this.writing >= this.maxPending && !this.stopping) {
				this.changed.await();
			}
			if (this.pending.isEmpty()) {
				this.firstPendingAt = System.nanoTime();
			}
			this.pending.add(new Done(task, context, duration));
			// The first completion starts the flush interval's clock; a full batch is written at once.
			if (this.pending.size() == 1 || this.pending.size() >= this.maxBatch) {
				this.changed.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Flushes batches until {@link #stop()} has been called and nothing is left, or the thread is interrupted. */
	void flushUntilStopped() {
		while (true) {
			List<Done> batch;
			try {
				batch = nextBatch();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			if (batch == null) {
				return;
			}
			if (!flush(batch)) {
				try {
					Thread.sleep(Math.max(100, this.maxDelay.toMillis()));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	/** Flushes what is waiting, then lets {@link #flushUntilStopped()} return. */
	void stop() {
		this.lock.lock();
		try {
			this.stopping = true;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private @Nullable List<Done> nextBatch() throws InterruptedException {
		this.lock.lock();
		try {
			while (true) {
				if (this.pending.isEmpty()) {
					if (this.stopping) {
						return null;
					}
					this.changed.await();
					continue;
				}
				long waited = System.nanoTime() - this.firstPendingAt;
				if (this.pending.size() >= this.maxBatch || waited >= this.maxDelay.toNanos() || this.stopping) {
					return takeLocked(this.maxBatch);
				}
				this.changed.awaitNanos(this.maxDelay.toNanos() - waited);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Takes up to {@code max} waiting completions to write them; the caller must hand them to {@link #written} or,
	 * when they could not be written, {@link #putBack}.
	 */
	List<Done> take(int max) {
		this.lock.lock();
		try {
			return takeLocked(max);
		}
		finally {
			this.lock.unlock();
		}
	}

	private List<Done> takeLocked(int max) {
		List<Done> head = this.pending.subList(0, Math.min(this.pending.size(), max));
		List<Done> taken = new ArrayList<>(head);
		head.clear();
		this.writing += taken.size();
		this.firstPendingAt = System.nanoTime();
		return taken;
	}

	/** Puts completions that could not be written back at the head of the line. */
	void putBack(List<Done> batch) {
		if (batch.isEmpty()) {
			return;
		}
		this.lock.lock();
		try {
			this.pending.addAll(0, batch);
			this.writing -= batch.size();
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Reports written completions: those {@code deleted}, and the others as lost claims. */
	void written(List<Done> batch, Set<UUID> deleted) {
		if (batch.isEmpty()) {
			return;
		}
		this.lock.lock();
		try {
			this.writing -= batch.size();
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		for (Done done : batch) {
			if (deleted.contains(done.task().id())) {
				this.listener.completed(done.context(), done.duration());
			}
			else {
				logger.warn("Task " + done.task().id() + " on queue '" + done.task().queue() + "' (attempt "
						+ done.task().attempt() + ") lost its claim before its completion was written; it runs again");
				this.listener.claimLost(done.context());
			}
		}
	}

	private boolean flush(List<Done> batch) {
		Set<UUID> deleted = new HashSet<>();
		List<ClaimedTask> handedOff = new ArrayList<>();
		HandOffs handOffs = this.handOffs;
		try {
			Map<UUID, List<ClaimedTask>> bySession = batch.stream()
				.map(Done::task)
				.collect(Collectors.groupingBy(ClaimedTask::claimedBy, Collectors.toList()));
			this.transactions.executeWithoutResult((status) -> {
				deleted.clear(); // a serialization failure runs this again: what a rolled back try did is undone
				handedOff.clear();
				bySession.forEach((session, tasks) -> {
					ClaimResult result = this.tasks.completeAll(session, tasks, handOffs.queueOf(tasks));
					deleted.addAll(result.completed());
					handedOff.addAll(result.handedOff());
				});
			});
		}
		catch (RuntimeException | Error ex) {
			// An Error too: the flusher must go on, or these tasks would stay claimed while this session lives.
			if (ex instanceof Error || !this.outage.failed("write batched completions", ex)) {
				logger.warn("Could not write " + batch.size() + " completions, will try again: "
						+ ErrorText.summary(ex));
			}
			putBack(batch);
			return false;
		}
		this.outage.succeeded();
		handOffs.handedOff(handedOff);
		written(batch, deleted);
		return true;
	}

	/** A completion waiting to be written. */
	record Done(ClaimedTask task, TaskContext context, Duration duration) {
	}

}
