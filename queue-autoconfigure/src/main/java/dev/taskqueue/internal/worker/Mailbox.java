package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionOperations;

/**
 * The outcomes waiting for the claim loop, which drains them into its next statements: the pending deletes of
 * {@code BATCHED} completions ({@link Outcome.DeletePending}), which a claim of a {@code BATCHED} queue carries or the
 * {@link CompletionFlusher} writes once {@code maxBatch} wait or {@code maxDelay} after the first came; the ordering
 * keys whose head a completion deleted ({@link Outcome.KeyLeftHeadless}), whose next task the queue's next claim hands
 * off; and the outcomes that could not be written when they came ({@link Outcome.Written}), written before the next
 * claim. Stages only post here; nothing here calls back into them. The claim loop takes each claim's request from
 * here ({@link #takeForClaim}), so that what a claim carries, and the room it keeps for what that hands off, is
 * decided in one place.
 * <p>
 * A handler thread that finds {@code 4 * maxBatch} deletes waiting or being written blocks until a write makes room,
 * so claiming slows down with the database. When the claim loop does not claim for a queue (paused) or has ended,
 * the keys left to it get their next head for any claim at once; should this instance die first, the sweep of
 * every instance's heartbeat gives those keys their head.
 */
final class Mailbox {

	private static final Log logger = LogFactory.getLog(Mailbox.class);

	private final TaskRepository tasks;

	private final TransactionOperations transactions;

	private final int maxBatch;

	private final int maxPending;

	private final Duration maxDelay;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	// Guarded by lock: the deletes waiting, when the first came, how many are being written, and whether to stop.
	private final List<Outcome.DeletePending> deletes = new ArrayList<>();

	private long firstDeleteAt;

	private int writing;

	private boolean stopping;

	// Guarded by this: the keys left to a claim, by queue, and whether the claim loop has ended.
	private final Map<String, List<String>> keys = new HashMap<>();

	private boolean closed;

	/** How many keys wait, over all queues: read without the lock by the handler threads' wake-ups. */
	private volatile int waitingKeys;

	private final Queue<Outcome.Written> unwritten = new ConcurrentLinkedQueue<>();

	/**
	 * @param tasks writes the heads of keys that no claim will hand off
	 * @param transactions the worker's own transactions
	 * @param maxBatch the most deletes one statement writes
	 * @param maxDelay how long a delete waits for others before the flusher writes it
	 */
	Mailbox(TaskRepository tasks, TransactionOperations transactions, int maxBatch, Duration maxDelay) {
		this.tasks = tasks;
		this.transactions = transactions;
		this.maxBatch = maxBatch;
		this.maxPending = maxBatch * 4;
		this.maxDelay = maxDelay;
	}

	/** The worker starts (again): deletes and keys wait for its claims. */
	void open() {
		this.lock.lock();
		try {
			this.stopping = false;
		}
		finally {
			this.lock.unlock();
		}
		synchronized (this) {
			this.closed = false;
		}
	}

	// -- what a claim carries

	/**
	 * Takes what the claim loop's next claim of {@code queue} carries, and makes that claim's request: for a queue
	 * whose claims carry the deletes of {@code BATCHED} completions, up to {@code maxDeletes} of them (one round trip
	 * and one commit for both); for another queue, the keys its completions left headless, whose next tasks the
	 * claim hands off, each with the tasks of its key that fit in a thread's group after it ({@link KeyRuns}). Each
	 * task the claim may hand off takes a place of the {@code free} ones. The caller must give what it took back to
	 * {@link #written(ForClaim)} or, when the claim failed, {@link #putBack(ForClaim)}.
	 * @param after where in {@code bucket} the claim starts, {@code null} for its head
	 * @param tasksPerThread how many tasks one handler thread of the queue holds at once
	 * @param fairAfter for a fair claim, the fairness key it starts after; {@code null} for a claim in queue order
	 */
	ForClaim takeForClaim(String queue, UUID session, int bucket, @Nullable ClaimedTask after, int free,
			boolean carriesDeletes, int maxDeletes, int tasksPerThread, @Nullable String fairAfter) {
		List<Outcome.DeletePending> done = carriesDeletes ? takeDeletes(maxDeletes) : List.of();
		List<ClaimedTask> doneTasks = done.stream().map(Outcome.DeletePending::task).toList();
		List<String> keys = carriesDeletes ? List.of() : takeKeys(queue, free);
		// A delete of a task with an ordering key of this queue may hand its key's next task to this claim.
		int limit = Math.max(0, free - keys.size() - (int) doneTasks.stream()
			.filter((task) -> task.orderingKey() != null && task.queue().equals(queue))
			.count());
		// A claim that hands keys off claims in the queue's order: the hand-off is its own statement (KeyStatements).
		return new ForClaim(new TaskClaims.Request(queue, session, bucket, TaskClaims.Request.Reach.BUCKET, after,
				limit, doneTasks, keys, tasksPerThread - 1, keys.isEmpty() ? fairAfter : null), done);
	}

	/** The claim of {@code carried} was written: the room of its deletes is free. */
	void written(ForClaim carried) {
		written(carried.deletes());
	}

	/** The claim of {@code carried} failed: what it carried goes first next time. */
	void putBack(ForClaim carried) {
		putBack(carried.deletes());
		putBackKeys(carried.request().queue(), carried.request().headlessKeys());
	}

	/** The claim loop does not claim for {@code queue} now (paused): what waits for its claims is written now. */
	void notClaimingFor(String queue) {
		promoteKeys(queue);
	}

	/** The claim loop has ended: what waits for its claims, and what is still to come, is written at once. */
	void claimsEnded() {
		closeKeys();
	}

	/**
	 * A claim's request, and the {@code BATCHED} completions it deletes.
	 * @param request the statement to run
	 * @param deletes the deletes it writes, as they were posted
	 */
	record ForClaim(TaskClaims.Request request, List<Outcome.DeletePending> deletes) {
	}

	// -- deletes of BATCHED completions

	/** Posts a {@code BATCHED} completion's delete; blocks while too many are waiting. */
	void post(Outcome.DeletePending delete) throws InterruptedException {
		this.lock.lock();
		try {
			while (this.deletes.size() + this.writing >= this.maxPending && !this.stopping) {
				this.changed.await();
			}
			if (this.deletes.isEmpty()) {
				this.firstDeleteAt = System.nanoTime();
			}
			this.deletes.add(delete);
			// The first delete starts the flush interval's clock; a full batch is written at once.
			if (this.deletes.size() == 1 || this.deletes.size() >= this.maxBatch) {
				this.changed.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Takes up to {@code max} waiting deletes to write them; the caller must hand them to {@link #written} or, when
	 * they could not be written, {@link #putBack}.
	 */
	List<Outcome.DeletePending> takeDeletes(int max) {
		this.lock.lock();
		try {
			return takeDeletesLocked(max);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * For the flusher: waits until a batch is full, or {@code maxDelay} has passed since its first delete, or the
	 * mailbox stops, and takes it; {@code null} once stopped with nothing left.
	 */
	@Nullable List<Outcome.DeletePending> awaitDeletes() throws InterruptedException {
		this.lock.lock();
		try {
			while (true) {
				if (this.deletes.isEmpty()) {
					if (this.stopping) {
						return null;
					}
					this.changed.await();
					continue;
				}
				long waited = System.nanoTime() - this.firstDeleteAt;
				if (this.deletes.size() >= this.maxBatch || waited >= this.maxDelay.toNanos() || this.stopping) {
					return takeDeletesLocked(this.maxBatch);
				}
				this.changed.awaitNanos(this.maxDelay.toNanos() - waited);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private List<Outcome.DeletePending> takeDeletesLocked(int max) {
		List<Outcome.DeletePending> head = this.deletes.subList(0, Math.min(this.deletes.size(), max));
		List<Outcome.DeletePending> taken = new ArrayList<>(head);
		head.clear();
		this.writing += taken.size();
		this.firstDeleteAt = System.nanoTime();
		return taken;
	}

	/** Puts deletes that could not be written back at the head of the line. */
	void putBack(List<Outcome.DeletePending> batch) {
		if (batch.isEmpty()) {
			return;
		}
		this.lock.lock();
		try {
			this.deletes.addAll(0, batch);
			this.writing -= batch.size();
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** {@code batch}, taken before, has been written: its room is free. */
	void written(List<Outcome.DeletePending> batch) {
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
	}

	/** Lets {@link #awaitDeletes()} return what is left, then {@code null}; handler threads no longer block. */
	void stopDeletes() {
		this.lock.lock();
		try {
			this.stopping = true;
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	// -- keys left headless

	/** Posts keys left headless by a completion that committed, all of one queue. */
	void post(List<Outcome.KeyLeftHeadless> headless) {
		if (headless.isEmpty()) {
			return;
		}
		String queue = headless.get(0).queue();
		List<String> left = headless.stream().map(Outcome.KeyLeftHeadless::key).toList();
		synchronized (this) {
			if (!this.closed) {
				this.keys.computeIfAbsent(queue, (name) -> new ArrayList<>()).addAll(left);
				this.waitingKeys += left.size();
				return;
			}
		}
		promoteOrWarn(queue, left);
	}

	/**
	 * Whether something waits that only a claim writes, keys left headless: the claim loop must be woken for them,
	 * backlog or not.
	 */
	boolean waitsForClaim() {
		return this.waitingKeys > 0;
	}

	/** Takes up to {@code max} keys of {@code queue}, the oldest first, for a claim to hand their next tasks off. */
	synchronized List<String> takeKeys(String queue, int max) {
		List<String> waiting = this.keys.get(queue);
		if (waiting == null || waiting.isEmpty() || max <= 0) {
			return List.of();
		}
		List<String> taken = new ArrayList<>(waiting.subList(0, Math.min(max, waiting.size())));
		waiting.subList(0, taken.size()).clear();
		this.waitingKeys -= taken.size();
		return taken;
	}

	/** Gives back {@code keys} that a claim took but could not write, to go first next time. */
	synchronized void putBackKeys(String queue, List<String> keys) {
		if (!keys.isEmpty()) {
			this.keys.computeIfAbsent(queue, (name) -> new ArrayList<>()).addAll(0, keys);
			this.waitingKeys += keys.size();
		}
	}

	/** Makes the next tasks of {@code queue}'s keys heads for any claim now: the claim loop does not claim for it. */
	void promoteKeys(String queue) {
		List<String> taken = takeKeys(queue, Integer.MAX_VALUE);
		if (!taken.isEmpty()) {
			try {
				promote(queue, taken);
			}
			catch (RuntimeException ex) {
				putBackKeys(queue, taken);
				throw ex;
			}
		}
	}

	/** The claim loop has ended: the keys waiting, and those still to come, get their next heads at once. */
	void closeKeys() {
		Map<String, List<String>> left;
		synchronized (this) {
			this.closed = true;
			left = new HashMap<>(this.keys);
			this.keys.clear();
			this.waitingKeys = 0;
		}
		left.forEach(this::promoteOrWarn);
	}

	private void promoteOrWarn(String queue, List<String> keys) {
		if (keys.isEmpty()) {
			return;
		}
		try {
			promote(queue, keys);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not give " + keys.size() + " ordering keys of queue '" + queue + "' their next task; "
					+ "the heartbeat's sweep of any instance will: " + ErrorText.summary(ex));
		}
	}

	private void promote(String queue, List<String> keys) {
		this.transactions.executeWithoutResult((status) -> this.tasks.promoteHeadless(queue, keys));
	}

	// -- outcomes not written yet

	/** Keeps an outcome that could not be written, for the claim loop to write before its next claim. */
	void post(Outcome.Written outcome) {
		this.unwritten.add(outcome);
	}

	/** Takes the outcomes waiting to be written, at most as many as were waiting when it was called. */
	List<Outcome.Written> takeUnwritten() {
		List<Outcome.Written> taken = new ArrayList<>();
		int waiting = this.unwritten.size();
		for (int i = 0; i < waiting; i++) {
			Outcome.Written outcome = this.unwritten.poll();
			if (outcome == null) {
				break;
			}
			taken.add(outcome);
		}
		return taken;
	}

	/** How many outcomes wait to be written. */
	int unwritten() {
		return this.unwritten.size();
	}

}
