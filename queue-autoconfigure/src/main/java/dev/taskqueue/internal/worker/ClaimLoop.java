package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import dev.taskqueue.internal.support.DatabaseOutage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionOperations;

/**
 * The worker's claim loop: it claims exactly the free capacity of each queue, one queue after the other, and
 * hands what it claimed to the handler threads; then it waits for a wake-up (an enqueue, a finished task: its
 * {@link WakeUp}) or the poll interval. It also writes the task outcomes that could not be written before.
 */
final class ClaimLoop implements Runnable {

	private static final Log logger = LogFactory.getLog(ClaimLoop.class);

	/** The order of the claim query, which its RETURNING clause does not keep. */
	static final Comparator<ClaimedTask> CLAIM_ORDER = Comparator.comparingInt(ClaimedTask::priority)
		.reversed()
		.thenComparing(ClaimedTask::runAt)
		.thenComparing(ClaimedTask::id);

	private final List<QueueState> queues;

	private final TaskRepository tasks;

	private final WorkerSession session;

	/** Writes the outcomes that could not be written when they came. */
	private final OutcomeRecorder outcomes;

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private final DatabaseOutage outage;

	private final TransactionOperations ownTransactions;

	private final HandlerExecutor handlers;

	private final WakeUp wakeUp;

	private final Duration pollInterval;

	private final BooleanSupplier running;

	private final Consumer<@Nullable String> releaseUnstarted;

	/** The outcomes waiting for this loop's claims, which each claim drains into its statement. */
	private final Mailbox mailbox;

	private final int completionBatchSize;

	private final LimitedClaimer limited;

	private int nextQueue;

	/**
	 * @param running whether the worker still runs; the loop ends when it does not
	 * @param releaseUnstarted gives back the claimed tasks of a queue that have not started
	 * @param mailbox the outcomes the claims carry
	 * @param completionBatchSize the most completions one claim writes
	 */
	ClaimLoop(List<QueueState> queues, TaskRepository tasks, WorkerSession session, OutcomeRecorder outcomes,
			TransactionOperations ownTransactions, HandlerExecutor handlers, WakeUp wakeUp, Duration pollInterval,
			BooleanSupplier running, Consumer<@Nullable String> releaseUnstarted, Mailbox mailbox,
			int completionBatchSize, DatabaseOutage outage) {
		this.outage = outage;
		this.queues = List.copyOf(queues);
		this.tasks = tasks;
		this.session = session;
		this.outcomes = outcomes;
		this.ownTransactions = ownTransactions;
		this.handlers = handlers;
		this.wakeUp = wakeUp;
		this.pollInterval = pollInterval;
		this.running = running;
		this.releaseUnstarted = releaseUnstarted;
		this.mailbox = mailbox;
		this.completionBatchSize = completionBatchSize;
		this.limited = new LimitedClaimer(tasks.limitedClaims(), pollInterval);
	}

	@Override
	public void run() {
		while (this.running.getAsBoolean()) {
			long tried = System.nanoTime();
			try {
				this.outcomes.recordPending();
				releasePaused();
				// Start with another queue each time, so that with a pool-bound limit no queue starves the others.
				this.nextQueue = (this.nextQueue + 1) % this.queues.size();
				boolean asked = false;
				for (int i = 0; i < this.queues.size(); i++) {
					asked |= claim(this.queues.get((this.nextQueue + i) % this.queues.size()));
				}
				if (asked) { // a round that ran no statement learnt nothing of the database: not "it is back"
					this.outage.succeeded(tried);
				}
				this.wakeUp.await(sleep(System.nanoTime()));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException | Error ex) {
				// An Error too: a claim loop that ends would leave this instance running nothing, silently.
				if (ex instanceof Error || !this.outage.failed("claim tasks", ex)) {
					logger.warn("Could not claim tasks, trying again in " + this.pollInterval + ": "
							+ ErrorText.summary(ex), (ex instanceof Error) ? ex : null);
				}
				try {
					WakeUp.sleep(this.pollInterval);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
		this.mailbox.claimsEnded();
	}

	/**
	 * How long to wait for a wake-up: the limited queues' sleep, but no longer than until a queue claimed in its order
	 * while one fairness key has due tasks owes an ask for another key: a round skipped it because it came too soon
	 * after the last (the wake-up it skipped may have been an enqueue of another key), or the last found one.
	 */
	private Duration sleep(long now) {
		Duration sleep = this.limited.sleep(now);
		for (QueueState queue : this.queues) {
			long owed = queue.fairness.watchOwedIn(now);
			if (owed >= 0 && Duration.ofNanos(owed).compareTo(sleep) < 0) {
				sleep = Duration.ofNanos(owed);
			}
		}
		return sleep;
	}

	/**
	 * Gives back the claimed tasks that have not started of the queues paused here or, by heartbeat, elsewhere, and
	 * has the mailbox write what waits for their claims.
	 */
	private void releasePaused() {
		for (QueueState queue : this.queues) {
			if (this.session.isPaused(queue.name())) {
				this.releaseUnstarted.accept(queue.name());
				this.mailbox.notClaimingFor(queue.name());
			}
		}
	}

	/** Claims for {@code queue} what it has room for; whether a statement ran. */
	private boolean claim(QueueState queue) {
		// A queue that claims only what it starts at once claims no more than the pool leaves threads for now.
		int free = (queue.capacity() == queue.spec.settings().concurrency())
				? Math.min(queue.toClaim(), this.handlers.freeThreads()) : queue.toClaim();
		if (!this.running.getAsBoolean() || this.session.isPaused(queue.name())) {
			return false; // a paused queue claims nothing until it is resumed, here or (by heartbeat) elsewhere
		}
		long started = System.nanoTime();
		boolean asked = false;
		if (!queue.spec.settings().limits().any() && queue.fairness.mayWatch(started)) {
			// One key's tasks claimed in the queue's order: has another key due tasks? Asked also when the queue has
			// no room, so that a tenant that shows up need not wait for the tasks claimed ahead of it.
			String sole = Objects.requireNonNull(queue.fairness.soleKey());
			queue.fairness.watched(started);
			asked = true;
			// Without room, a claim of at most one task a thread beyond it, until the threads caught up.
			int besideKey = queue.besideKey(free);
			String other = (besideKey > 0)
					? this.tasks.otherFairnessKey(queue.name(), sole, queue.fairness.roundStart()) : null;
			if (besideKey > 0) {
				queue.fairness.found(other, started);
			}
			if (other != null) {
				free -= claimKey(queue, other, besideKey, started);
			}
		}
		if (free <= 0) {
			return asked;
		}
		UUID sessionId = this.session.id();
		// Each claim reads another bucket first (round-robin), so that instances spread over the buckets' heads.
		int bucket = queue.positions.nextBucket();
		if (queue.spec.settings().limits().any()) {
			// Completions of a BATCHED queue with limits are left to the flusher: the claim takes the queue's lock.
			if (!this.limited.mayClaim(queue, started)) {
				return false;
			}
			List<ClaimedTask> claimed = this.limited.claim(queue, bucket, sessionId, free);
			handOver(queue, bucket, claimed, true, started, claimed.size() == free || this.limited.heldBack(queue),
					true);
			return true;
		}
		if (queue.fairness.mayProbe(started)) { // once a second while plain: one probe of the keyed tasks' index
			queue.fairness.probed(this.tasks.fairTenants(queue.name(), bucket, free), started);
		}
		String fairAfter = queue.fairness.after();
		// A fair claim reads from the heads, and keeps out of the positions' timings of the plain one's.
		ClaimedTask from = (fairAfter == null) ? queue.positions.claimFrom(bucket, started) : null;
		Claim claim = claim(queue, bucket, from, sessionId, free, fairAfter);
		if (!claim.handedOff().isEmpty()) {
			this.handlers.submit(queue, claim.handedOff()); // before handOver, which gives back what a pause stops
		}
		List<ClaimedTask> claimed = claim.claimed();
		handOver(queue, bucket, claimed, from == null, started, claimed.size() == claim.limit(), fairAfter == null,
				claim.ahead());
		free -= claim.handedOff().size();
		if (claimed.size() < free && queue.positions.wrapAround(System.nanoTime())) {
			// The bucket had fewer: the rest from the other buckets, which hold tasks also with one bucket when a
			// producer counted more (see QueueState.ClaimPositions#wrapAround).
			long again = System.nanoTime();
			int rest = free - claimed.size();
			TaskClaims.Request others = new TaskClaims.Request(queue.name(), sessionId, bucket,
					TaskClaims.Request.Reach.OTHERS, null, rest, List.of(), List.of(), 0);
			List<ClaimedTask> more = this.ownTransactions.execute((status) -> this.tasks.claim(others)).claimed();
			handOver(queue, bucket, more, true, again, more.size() == rest, false);
		}
		return true;
	}

	/**
	 * The claim of up to {@code limit} tasks of fairness key {@code key}, which showed up beside the one key the queue
	 * claims in its order: its turn of the round, handed to the threads before the tasks claimed ahead. The other
	 * key's share is left to the plain claim that follows. Returns how many it took.
	 */
	private int claimKey(QueueState queue, String key, int limit, long now) {
		UUID sessionId = this.session.id();
		List<ClaimedTask> claimed = this.ownTransactions
			.execute((status) -> this.tasks.claimKey(queue.name(), key, sessionId, limit))
			.stream()
			.sorted(CLAIM_ORDER)
			.toList();
		queue.fairness.turnTaken(key, !claimed.isEmpty(), now);
		if (this.session.isPaused(queue.name())) {
			this.outcomes.release(claimed);
			this.releaseUnstarted.accept(queue.name());
		}
		else {
			this.handlers.submit(queue, claimed, true);
		}
		return claimed.size();
	}

	/**
	 * One claim statement of {@code queue}, from {@code bucket}'s head or its position {@code from}, for up to
	 * {@code free} tasks: those it claims, and those the outcomes it carries gave this worker. With
	 * {@code fairAfter}, the fair claim, round-robin across fairness keys from the one after it.
	 */
	private Claim claim(QueueState queue, int bucket, @Nullable ClaimedTask from, UUID sessionId, int free,
			@Nullable String fairAfter) {
		// The claim writes what waits for it in the mailbox: one round trip and one commit for both.
		Mailbox.ForClaim carried = this.mailbox.takeForClaim(queue.name(), sessionId, bucket, from, free,
				queue.spec.mode().claimsCarryDeletes(), this.completionBatchSize, queue.spec.mode().tasksPerThread(),
				fairAfter);
		ClaimResult result;
		try {
			result = this.ownTransactions.execute((status) -> this.tasks.claim(carried.request()));
		}
		catch (RuntimeException | Error ex) {
			this.mailbox.putBack(carried);
			throw ex;
		}
		this.mailbox.written(carried);
		this.outcomes.deleted(carried.deletes(), result.completed());
		if (carried.request().fairAfter() != null) {
			queue.fairness.claimed(result, System.nanoTime());
		}
		queue.spec.mode().claimed(result); // before its tasks are handed to the threads
		return new Claim(result.claimed(), result.handedOff(), carried.request().limit(), result.ahead());
	}

	/**
	 * What one claim statement took: {@code claimed} of the {@code limit} it asked for, {@code handedOff}, and of a
	 * fair claim the tasks that run before those claimed ahead.
	 */
	private record Claim(List<ClaimedTask> claimed, List<ClaimedTask> handedOff, int limit, Set<UUID> ahead) {
	}

	/**
	 * Hands the tasks of a claim to the handler threads, in claim order.
	 * @param record whether the claim read {@code bucket} and counts in its position and timings
	 */
	private void handOver(QueueState queue, int bucket, List<ClaimedTask> claimed, boolean full, long started,
			boolean mayHaveMore, boolean record) {
		handOver(queue, bucket, claimed, full, started, mayHaveMore, record, Set.of());
	}

	/**
	 * Hands the tasks of a claim to the handler threads, in claim order, those in {@code ahead} before the tasks
	 * waiting for a thread: a fair claim's tasks of the tenants with little due work, which would otherwise wait
	 * behind what the queue claimed ahead of its threads, most of it a big tenant's backlog (docs/fairness.md).
	 */
	private void handOver(QueueState queue, int bucket, List<ClaimedTask> claimed, boolean full, long started,
			boolean mayHaveMore, boolean record, Set<UUID> ahead) {
		List<ClaimedTask> inOrder = claimed.stream().sorted(CLAIM_ORDER).toList();
		if (record) {
			queue.positions.claimed(bucket, inOrder, full, started, System.nanoTime());
		}
		queue.mayHaveMore = mayHaveMore;
		if (this.session.isPaused(queue.name())) {
			// Paused while it claimed: none of these starts. Asked before they reach a thread, and after the
			// statement, so that a task enqueued after the pause, which only this claim could have seen, never runs.
			this.outcomes.release(inOrder);
			this.releaseUnstarted.accept(queue.name()); // what a hand-off gave this claim
			return;
		}
		if (ahead.isEmpty()) {
			this.handlers.submit(queue, inOrder);
			return;
		}
		this.handlers.submit(queue, inOrder.stream().filter((task) -> ahead.contains(task.id())).toList(), true);
		this.handlers.submit(queue, inOrder.stream().filter((task) -> !ahead.contains(task.id())).toList());
	}

	/**
	 * A signal that wakes the claim loop early: an enqueue ({@link NotificationListener}), a task settled or a
	 * handler thread given back while a claim is worth it ({@link HandlerExecutor}), a pause, a resume or the stop
	 * ({@link TaskWorker}). A signal given while the loop is busy is kept, so it is never lost.
	 */
	static final class WakeUp {

		private final ReentrantLock lock = new ReentrantLock();

		private final Condition signalled = this.lock.newCondition();

		private volatile boolean pending;

		void signal() {
			if (this.pending) {
				return; // the loop has not taken the last signal yet: it will look anyway
			}
			this.lock.lock();
			try {
				this.pending = true;
				this.signalled.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}

		/** Waits for a signal or until {@code timeout} has passed, and consumes the signal. */
		void await(Duration timeout) throws InterruptedException {
			long nanos = timeout.toNanos();
			this.lock.lock();
			try {
				while (!this.pending && nanos > 0) {
					nanos = this.signalled.awaitNanos(nanos);
				}
				this.pending = false;
			}
			finally {
				this.lock.unlock();
			}
		}

		/** Waits without consuming anything. */
		static void sleep(Duration duration) throws InterruptedException {
			TimeUnit.NANOSECONDS.sleep(duration.toNanos());
		}

	}

}
