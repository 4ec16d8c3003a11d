package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.internal.handler.TaskHandlerMethod;

/**
 * One queue as this instance runs it: what is fixed when the worker starts ({@link Spec}), and what changes while
 * the queue runs: the tasks it has claimed and not yet started, how many of its tasks are in flight, where its next
 * claim reads and how long its handlers take.
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

	final Spec spec;

	/** The most tasks claimed ahead of the threads ({@code taskqueue.worker.max-prefetch}). */
	private final int maxPrefetch;

	/** Claimed tasks, from claim until their outcome is settled. */
	final AtomicInteger inFlight = new AtomicInteger();

	/**
	 * Claimed tasks waiting for a handler thread, in claim order, except a fair claim's for a tenant that showed up
	 * beside the one claimed in the queue's order, which go first (docs/fairness.md).
	 */
	final Deque<ClaimedTask> waiting = new ConcurrentLinkedDeque<>();

	/** Permits to run handler threads: at most {@code concurrency} at once. */
	final Semaphore running;

	/** Whether the last claim took all it asked for, so more tasks are probably waiting. */
	volatile boolean mayHaveMore;

	/** Which bucket the next claim reads first, and where in it (see {@link ClaimPositions}). */
	final ClaimPositions positions;

	/** Whether its claims are fair, and from which fairness key (docs/fairness.md). */
	final FairShares fairness = new FairShares();

	/** A moving average of how long a handler of this queue runs, which decides when a group commits. */
	private volatile long typicalHandlerNanos;

	QueueState(Spec spec, int maxPrefetch) {
		this.spec = spec;
		this.maxPrefetch = maxPrefetch;
		this.running = new Semaphore(spec.settings().concurrency());
		this.positions = new ClaimPositions(spec.settings().buckets());
	}

	String name() {
		return this.spec.name();
	}

	/**
	 * How many tasks this instance holds claimed at most: enough for every thread (a group per thread with group
	 * commit) and, while handlers are quick, a prefetch of what the threads finish in {@link #PREFETCH_HORIZON} (at
	 * least as many again, at most {@code maxPrefetch}), so that a thread that finishes finds its next task here
	 * and claims come in large batches. Once handlers take {@link #CLAIM_AHEAD_BELOW} or more, a task claimed ahead
	 * would wait longer than another instance might, so the queue claims only what it starts.
	 */
	int capacity() {
		int concurrency = this.spec.settings().concurrency();
		long handlerNanos = this.typicalHandlerNanos;
		if (handlerNanos >= CLAIM_AHEAD_BELOW.toNanos()) {
			return concurrency;
		}
		int running = concurrency * this.spec.mode().tasksPerThread();
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
		boolean claimsAhead = capacity > this.spec.settings().concurrency();
		return free > 0 && !(claimsAhead && this.mayHaveMore && free < capacity / 4);
	}

	long typicalHandlerNanos() {
		return this.typicalHandlerNanos;
	}

	/** Adds one handler's run time to the moving average (weight 1/8; races only lose a sample). */
	void handled(long nanos) {
		long typical = this.typicalHandlerNanos;
		this.typicalHandlerNanos = (typical == 0) ? nanos : typical + (nanos - typical) / 8;
	}

	/**
	 * The queue as fixed when the worker starts: its handler, its settings and how its tasks complete.
	 *
	 * @param handler the queue's handler
	 * @param settings the queue's settings
	 * @param mode how the queue's tasks complete
	 */
	record Spec(TaskHandlerMethod handler, QueueSettings settings, CompletionMode mode) {

		String name() {
			return this.handler.queue();
		}

		String describe() {
			return name() + " (concurrency " + this.settings.concurrency() + ", max-attempts "
					+ this.settings.maxAttempts() + ", timeout " + this.settings.timeout() + this.mode.describe()
					+ (this.settings.limits().any() ? ", " + this.settings.limits().describe() : "")
					+ ((this.settings.buckets() > 1) ? ", " + this.settings.buckets() + " buckets" : "") + ")";
		}

	}

}
