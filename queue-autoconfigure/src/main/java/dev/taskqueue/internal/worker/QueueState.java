package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.internal.handler.TaskHandlerMethod;
import org.jspecify.annotations.Nullable;

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

	/** Which bucket the next claim reads first, and where in it (see {@link ClaimPositions}, below). */
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

	/**
	 * The most tasks a claim of another fairness key beside the one key takes (docs/fairness.md), {@code free} being
	 * what the queue has room for now: half of it, at least one, and without room up to one task a thread beyond its
	 * capacity; 0 when even that is full.
	 */
	int besideKey(int free) {
		int room = (free > 0) ? free : capacity() + this.spec.settings().concurrency() - this.inFlight.get();
		return (room > 0) ? Math.max(1, room / 2) : 0;
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

	/**
	 * Where the claims of one queue start, in this instance: which bucket (docs/hash-sharded-claims.md), and in that
	 * bucket the head of the ready index or the position where the bucket's previous claim ended (docs/internals.md).
	 * The claim loop reads and writes it; only {@link #claimFromStart()} comes from other threads.
	 */
	static final class ClaimPositions {

		/** How often a claim scans a bucket from its start, at least (see {@link #claimFrom}). */
		static final Duration FULL_CLAIM_EVERY = Duration.ofSeconds(1);

		/** How often a claim scans a bucket from its start, however slow such a scan is. */
		static final Duration FULL_CLAIM_AT_MOST_EVERY = Duration.ofSeconds(30);

		/**
		 * Claims start from a position once scans from the start take this many times as long on average. A claim from
		 * a position costs about twice a scan from the start to plan and run, so it pays only when the start of the
		 * index is crowded with entries VACUUM cannot remove yet.
		 */
		static final int POSITION_PAYS_AT = 2;

		private final int buckets;

		/** The bucket the next claim reads first: a random one at first, then each in turn. */
		private int nextBucket;

		/** Per bucket, the last task of its last claim, in claim order, where the next claim may start. */
		private final @Nullable ClaimedTask[] claimedUpTo;

		/** Per bucket, when the next claim must scan it from its start ({@link System#nanoTime()}). */
		private final long[] fullClaimDue;

		/** Per bucket, the value of {@link #restarts} its last scan from the start saw. */
		private final int[] restartsSeen;

		/** Counts the calls of {@link #claimFromStart()}: every bucket scans from its start once after one. */
		private final AtomicInteger restarts = new AtomicInteger();

		/**
		 * When a claim from a position is tried again while scans from the start are cheaper, to see whether they
		 * still are.
		 */
		private long positionTryDue;

		/** With one bucket, when a short claim next goes on to the other buckets ({@link #wrapAround}). */
		private long wrapAroundDue = System.nanoTime();

		/** A moving average of how long a claim that scans from the start takes; 0 before the first. */
		private long fullClaimNanos;

		/** A moving average of how long a claim from the position takes; 0 before the first. */
		private long positionClaimNanos;

		ClaimPositions(int buckets) {
			this.buckets = buckets;
			this.nextBucket = (buckets == 1) ? 0 : ThreadLocalRandom.current().nextInt(buckets);
			this.claimedUpTo = new ClaimedTask[buckets];
			this.fullClaimDue = new long[buckets];
			this.restartsSeen = new int[buckets];
			long now = System.nanoTime();
			for (int bucket = 0; bucket < buckets; bucket++) {
				this.fullClaimDue[bucket] = now;
			}
		}

		int buckets() {
			return this.buckets;
		}

		/** The bucket the next claim reads first; each call moves on to the next bucket (round-robin). */
		int nextBucket() {
			int bucket = this.nextBucket;
			this.nextBucket = (bucket + 1 == this.buckets) ? 0 : bucket + 1;
			return bucket;
		}

		/**
		 * Where the next claim of {@code bucket} starts: the last task claimed there, or {@code null} to scan it from
		 * its start. A scan from the start runs at first, after tasks may have been released, and at least every
		 * {@link #FULL_CLAIM_EVERY} (more rarely when such a scan is slow) to take the tasks a claim from a position
		 * cannot see. Between those, claims start from the position when that has been measurably cheaper
		 * ({@link #POSITION_PAYS_AT}), and otherwise from the start, with a claim from the position once a second to
		 * measure it again.
		 */
		@Nullable ClaimedTask claimFrom(int bucket, long now) {
			ClaimedTask position = this.claimedUpTo[bucket];
			int restarts = this.restarts.get();
			if (restarts != this.restartsSeen[bucket]) {
				this.restartsSeen[bucket] = restarts; // the scan about to run starts after the release
				return null;
			}
			if (position == null || now - this.fullClaimDue[bucket] >= 0) {
				return null;
			}
			boolean positionPays = this.fullClaimNanos > POSITION_PAYS_AT * this.positionClaimNanos;
			return (positionPays || now - this.positionTryDue >= 0) ? position : null;
		}

		/**
		 * Records a claim that read {@code bucket} first: its tasks in claim order, whether it scanned from the start,
		 * and how long it took. A full scan is due again after {@link #FULL_CLAIM_EVERY}, or after 20 times its own
		 * duration when that is longer (at most {@link #FULL_CLAIM_AT_MOST_EVERY}), so that slow scans take at most a
		 * twentieth of the claim loop. The bucket's position is its last task in the claim; tasks of the other buckets
		 * the claim wrapped around to leave theirs alone.
		 */
		void claimed(int bucket, List<ClaimedTask> inClaimOrder, boolean full, long started, long ended) {
			for (int i = inClaimOrder.size() - 1; i >= 0; i--) {
				ClaimedTask task = inClaimOrder.get(i);
				if (task.bucket() == bucket) {
					this.claimedUpTo[bucket] = task;
					break;
				}
			}
			long took = ended - started;
			if (full) {
				this.fullClaimNanos = movingAverage(this.fullClaimNanos, took);
				long every = Math.min(Math.max(FULL_CLAIM_EVERY.toNanos(), 20 * took),
						FULL_CLAIM_AT_MOST_EVERY.toNanos());
				this.fullClaimDue[bucket] = ended + every;
			}
			else {
				this.positionClaimNanos = movingAverage(this.positionClaimNanos, took);
				this.positionTryDue = ended + FULL_CLAIM_EVERY.toNanos();
			}
		}

		/**
		 * Whether a claim that came back short goes on to the other buckets now. With several buckets, always: they
		 * are where the rest of the queue is. With one, at most once every {@link #FULL_CLAIM_EVERY}: only a
		 * producer that counts more buckets (or a count lowered since) puts tasks there, and each such claim is a
		 * statement more, which a queue that is often short (an idle one at each poll) would otherwise pay every time.
		 */
		boolean wrapAround(long now) {
			if (this.buckets > 1) {
				return true;
			}
			if (now - this.wrapAroundDue < 0) {
				return false;
			}
			this.wrapAroundDue = now + FULL_CLAIM_EVERY.toNanos();
			return true;
		}

		/** Weight 1/4: a single claim slowed by a pause moves it, but does not flip the choice on its own. */
		private static long movingAverage(long average, long sample) {
			return (average == 0) ? sample : average + (sample - average) / 4;
		}

		/**
		 * Makes the next claim of every bucket scan it from its start, because tasks that sort early may be ready
		 * again.
		 */
		void claimFromStart() {
			this.restarts.incrementAndGet();
		}

	}

}
