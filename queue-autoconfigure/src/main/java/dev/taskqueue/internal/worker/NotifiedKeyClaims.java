package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import dev.taskqueue.internal.support.DatabaseOutage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionOperations;

/**
 * The claim of a fairness key's tasks from the listening thread, on the notification of their enqueue
 * ({@link NotificationListener}), while the queue is claimed in the order of one other key (docs/fairness.md). The
 * claim loop would ask which key showed up and claim it, two statements behind the one key's claims, each waiting for
 * the disk; the notification names the key, so this thread claims it with one statement, the loop's
 * {@code claimKey}, and hands the tasks to the threads before those claimed ahead. As much as that claim would take:
 * at most half of what the queue has room for, and when it has none up to one task a thread beyond it.
 * <p>
 * It claims nothing once stopped ({@link #stop}), and waits for a claim under way before that returns, so that the
 * shutdown gives back what it handed over.
 */
final class NotifiedKeyClaims {

	private static final Log logger = LogFactory.getLog(NotifiedKeyClaims.class);

	private final Map<String, QueueState> queues;

	private final TaskRepository tasks;

	private final WorkerSession session;

	private final OutcomeRecorder outcomes;

	private final TransactionOperations ownTransactions;

	private final HandlerExecutor handlers;

	private final BooleanSupplier running;

	private final Consumer<@Nullable String> releaseUnstarted;

	private final DatabaseOutage outage;

	/** Held while a claim runs; {@link #stop} takes it to wait for one under way. */
	private final ReentrantLock claiming = new ReentrantLock();

	private volatile boolean stopped;

	/** How many tasks this instance claimed on notifications, for tests. */
	private volatile long claimedTasks;

	NotifiedKeyClaims(Map<String, QueueState> queues, TaskRepository tasks, WorkerSession session,
			OutcomeRecorder outcomes, TransactionOperations ownTransactions, HandlerExecutor handlers,
			BooleanSupplier running, Consumer<@Nullable String> releaseUnstarted, DatabaseOutage outage) {
		this.queues = Map.copyOf(queues);
		this.tasks = tasks;
		this.session = session;
		this.outcomes = outcomes;
		this.ownTransactions = ownTransactions;
		this.handlers = handlers;
		this.running = running;
		this.releaseUnstarted = releaseUnstarted;
		this.outage = outage;
	}

	/**
	 * Claims the due tasks of fairness key {@code key} in {@code queue}, whose enqueue was notified, when the queue is
	 * claimed in another key's order and has room. Whether it claimed any: if not, the claim loop is to be woken.
	 */
	boolean claim(String queue, String key) {
		QueueState state = this.queues.get(queue);
		if (state == null || state.spec.settings().limits().any()) {
			return false;
		}
		String inOrder = state.fairness.claimedInOrder();
		if (inOrder == null || inOrder.equals(key)) {
			return false; // plain or fair claims, or the key claimed in order: the claim loop's
		}
		int limit = limit(state);
		if (limit <= 0) {
			return false;
		}
		this.claiming.lock();
		try {
			if (this.stopped || !this.running.getAsBoolean() || this.session.isPaused(queue)) {
				return false;
			}
			UUID sessionId = this.session.id();
			List<ClaimedTask> claimed = this.ownTransactions
				.execute((status) -> this.tasks.claimKey(queue, key, sessionId, limit))
				.stream()
				.sorted(ClaimLoop.CLAIM_ORDER)
				.toList();
			if (claimed.isEmpty()) {
				return false;
			}
			state.fairness.notifiedClaimed();
			this.claimedTasks += claimed.size();
			if (this.session.isPaused(queue)) {
				// Paused while it claimed: as the claim loop's claims, give them back before any starts.
				this.outcomes.release(claimed);
				this.releaseUnstarted.accept(queue);
			}
			else {
				this.handlers.submit(state, claimed, true);
			}
			return true;
		}
		catch (RuntimeException ex) {
			if (!this.outage.failed("claim a fairness key's tasks", ex)) {
				logger.warn("Could not claim the tasks of fairness key '" + key + "' of queue '" + queue
						+ "' on their enqueue; the claim loop looks for them: " + ErrorText.summary(ex));
			}
			return false;
		}
		finally {
			this.claiming.unlock();
		}
	}

	/**
	 * The most tasks a claim beside the one key takes, as the claim loop's ({@link QueueState#besideKey}). A queue that
	 * claims only what it starts counts its free threads.
	 */
	private int limit(QueueState state) {
		int capacity = state.capacity();
		int free = capacity - state.inFlight.get();
		if (capacity == state.spec.settings().concurrency()) {
			free = Math.min(free, this.handlers.freeThreads());
		}
		return state.besideKey(free);
	}

	/**
	 * Claims nothing more, after waiting up to {@code timeout} for a claim under way, whose tasks then are with the
	 * threads (or given back).
	 */
	void stop(Duration timeout) throws InterruptedException {
		this.stopped = true;
		if (this.claiming.tryLock(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
			this.claiming.unlock();
		}
	}

	/** How many tasks this instance claimed on the notifications of their enqueue. */
	long claimedTasks() {
		return this.claimedTasks;
	}

}
