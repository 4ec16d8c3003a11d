package dev.taskqueue.worker;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.handler.TaskHandlerMethod;
import dev.taskqueue.jdbc.ClaimedTask;
import org.jspecify.annotations.Nullable;

/**
 * One queue as this instance runs it: its handler, its settings, the tasks it has claimed and not yet started,
 * and how many of its tasks are in flight.
 */
final class QueueState {

	/** Handlers slower than this on average make the queue claim only what it starts at once. */
	static final Duration CLAIM_AHEAD_BELOW = Duration.ofMillis(50);

	/**
	 * How much work a queue holds claimed beyond what its threads run: what they finish in this time, so that the
	 * next claim's round trip (about a millisecond) ends long before the threads run out of tasks, and a claim
	 * takes many tasks at once. A task claimed ahead waits at most about this long for a thread here.
	 */
	static final Duration PREFETCH_HORIZON = Duration.ofMillis(10);

	/** How often a claim scans the queue from its start, at least (see {@link #claimFrom}). */
	static final Duration FULL_CLAIM_EVERY = Duration.ofSeconds(1);

	/** How often a claim scans the queue from its start, however slow such a scan is. */
	static final Duration FULL_CLAIM_AT_MOST_EVERY = Duration.ofSeconds(30);

	/**
	 * Claims start from a position once scans from the start take this many times as long on average. A claim from
	 * a position costs about twice a scan from the start to plan and run, so it pays only when the start of the
	 * index is crowded with entries VACUUM cannot remove yet.
	 */
	static final int POSITION_PAYS_AT = 2;

	final TaskHandlerMethod handler;

	final QueueSettings settings;

	/** The most tasks claimed ahead of the threads ({@code taskqueue.worker.max-prefetch}). */
	private final int maxPrefetch;

	/** Claimed tasks, from claim until their outcome is settled. */
	final AtomicInteger inFlight = new AtomicInteger();

	/** Claimed tasks waiting for a handler thread, in claim order. */
	final Queue<ClaimedTask> waiting = new ConcurrentLinkedQueue<>();

	/** Permits to run handler threads: at most {@code concurrency} at once. */
	final Semaphore running;

	/** Whether the last claim took all it asked for, so more tasks are probably waiting. */
	volatile boolean mayHaveMore;

	/**
	 * The last task of the last claim, in claim order, where the next claim may start; {@code null} at first. Only
	 * the claim loop reads and writes it.
	 */
	private @Nullable ClaimedTask claimedUpTo;

	/** When the next claim must scan the queue from its start ({@link System#nanoTime()}). */
	private volatile long fullClaimDue = System.nanoTime();

	/**
	 * When a claim from the position is tried again while scans from the start are cheaper, to see whether they
	 * still are. Like the two moving averages below, only the claim loop reads and writes it.
	 */
	private long positionTryDue;

	/** A moving average of how long a claim that scans from the start takes; 0 before the first. */
	private long fullClaimNanos;

	/** A moving average of how long a claim from the position takes; 0 before the first. */
	private long positionClaimNanos;

	/** A moving average of how long a handler of this queue runs, which decides when a group commits. */
	private volatile long typicalHandlerNanos;

	QueueState(TaskHandlerMethod handler, QueueSettings settings, int maxPrefetch) {
		this.handler = handler;
		this.settings = settings;
		this.maxPrefetch = maxPrefetch;
		this.running = new Semaphore(settings.concurrency());
	}

	String name() {
		return this.handler.queue();
	}

	/** Whether several tasks share one transaction, each in a savepoint. */
	boolean grouped() {
		return this.settings.groupSize() > 1 && !this.handler.batchedCompletion();
	}

	/**
	 * How many tasks this instance holds claimed at most: enough for every thread (a group per thread with group
	 * commit) and, while handlers are quick, a prefetch of what the threads finish in {@link #PREFETCH_HORIZON} (at
	 * least as many again, at most {@code maxPrefetch}), so that a thread that finishes finds its next task here
	 * and claims come in large batches. Once handlers take {@link #CLAIM_AHEAD_BELOW} or more, a task claimed ahead
	 * would wait longer than another instance might, so the queue claims only what it starts.
	 */
	int capacity() {
		int concurrency = this.settings.concurrency();
		long handlerNanos = this.typicalHandlerNanos;
		if (handlerNanos >= CLAIM_AHEAD_BELOW.toNanos()) {
			return concurrency;
		}
		int running = grouped() ? concurrency * this.settings.groupSize() : concurrency;
		long finished = (handlerNanos > 0) ? concurrency * (PREFETCH_HORIZON.toNanos() / handlerNanos) : 0;
		return running + (int) Math.min(this.maxPrefetch, Math.max(running, finished));
	}

	/**
	 * How many tasks to claim now, 0 when it is not worth a claim: while a backlog is likely, a queue that claims
	 * ahead waits until a quarter of its capacity is free, so that claims stay large.
	 */
	int toClaim() {
		int capacity = capacity();
		int free = capacity - this.inFlight.get();
		return worthClaiming(capacity, free) ? free : 0;
	}

	/** Whether a claim is worth it with {@code inFlight} tasks in flight, as {@link #toClaim()} decides. */
	boolean worthClaiming(int inFlight) {
		int capacity = capacity();
		return worthClaiming(capacity, capacity - inFlight);
	}

	private boolean worthClaiming(int capacity, int free) {
		boolean claimsAhead = capacity > this.settings.concurrency();
		return free > 0 && !(claimsAhead && this.mayHaveMore && free < capacity / 4);
	}

	/**
	 * Where the next claim starts: the last task this queue claimed, or {@code null} to scan the queue from its
	 * start. A scan from the start runs at first, after tasks may have been released, and at least every
	 * {@link #FULL_CLAIM_EVERY} (more rarely when such a scan is slow) to take the tasks a claim from a position
	 * cannot see. Between those, claims start from the position when that has been measurably cheaper
	 * ({@link #POSITION_PAYS_AT}), and otherwise from the start, with a claim from the position once a second to
	 * measure it again.
	 */
	@Nullable ClaimedTask claimFrom(long now) {
		ClaimedTask position = this.claimedUpTo;
		if (position == null || now - this.fullClaimDue >= 0) {
			return null;
		}
		boolean positionPays = this.fullClaimNanos > POSITION_PAYS_AT * this.positionClaimNanos;
		return (positionPays || now - this.positionTryDue >= 0) ? position : null;
	}

	/**
	 * Records a claim: its tasks in claim order, whether it scanned from the start, and how long it took. A full
	 * scan is due again after {@link #FULL_CLAIM_EVERY}, or after 20 times its own duration when that is longer
	 * (at most {@link #FULL_CLAIM_AT_MOST_EVERY}), so that slow scans take at most a twentieth of the claim loop.
	 */
	void claimed(List<ClaimedTask> inClaimOrder, boolean full, long started, long ended) {
		if (!inClaimOrder.isEmpty()) {
			this.claimedUpTo = inClaimOrder.get(inClaimOrder.size() - 1);
		}
		long took = ended - started;
		if (full) {
			this.fullClaimNanos = movingAverage(this.fullClaimNanos, took);
			long every = Math.min(Math.max(FULL_CLAIM_EVERY.toNanos(), 20 * took), FULL_CLAIM_AT_MOST_EVERY.toNanos());
			this.fullClaimDue = ended + every;
		}
		else {
			this.positionClaimNanos = movingAverage(this.positionClaimNanos, took);
			this.positionTryDue = ended + FULL_CLAIM_EVERY.toNanos();
		}
	}

	/** Weight 1/4: a single claim slowed by a pause moves it, but does not flip the choice on its own. */
	private static long movingAverage(long average, long sample) {
		return (average == 0) ? sample : average + (sample - average) / 4;
	}

	/** Makes the next claim scan the queue from its start, because tasks that sort early may be ready again. */
	void claimFromStart() {
		this.fullClaimDue = System.nanoTime();
	}

	long typicalHandlerNanos() {
		return this.typicalHandlerNanos;
	}

	/** Adds one handler's run time to the moving average (weight 1/8; races only lose a sample). */
	void handled(long nanos) {
		long typical = this.typicalHandlerNanos;
		this.typicalHandlerNanos = (typical == 0) ? nanos : typical + (nanos - typical) / 8;
	}

	String describe() {
		return name() + " (concurrency " + this.settings.concurrency() + ", max-attempts "
				+ this.settings.maxAttempts() + ", timeout " + this.settings.timeout()
				+ (this.handler.batchedCompletion() ? ", batched completion" : "")
				+ (this.settings.limits().any() ? ", " + this.settings.limits().describe() : "")
				+ (grouped() ? ", group commit of up to " + this.settings.groupSize() + " tasks or "
						+ this.settings.groupMaxDelay().toMillis() + " ms" : "")
				+ ")";
	}

}
