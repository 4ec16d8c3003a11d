package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * Where the claims of one queue start, in this instance: which bucket (docs/hash-sharded-claims.md), and in that
 * bucket the head of the ready index or the position where the bucket's previous claim ended (docs/internals.md).
 * The claim loop reads and writes it; only {@link #claimFromStart()} comes from other threads.
 */
final class ClaimPositions {

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
	 * Where the next claim of {@code bucket} starts: the last task claimed there, or {@code null} to scan it from its
	 * start. A scan from the start runs at first, after tasks may have been released, and at least every
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
			long every = Math.min(Math.max(FULL_CLAIM_EVERY.toNanos(), 20 * took), FULL_CLAIM_AT_MOST_EVERY.toNanos());
			this.fullClaimDue[bucket] = ended + every;
		}
		else {
			this.positionClaimNanos = movingAverage(this.positionClaimNanos, took);
			this.positionTryDue = ended + FULL_CLAIM_EVERY.toNanos();
		}
	}

	/**
	 * Whether a claim that came back short goes on to the other buckets now. With several buckets, always: they
	 * are where the rest of the queue is. With one, at most once every {@link #FULL_CLAIM_EVERY}: only a producer
	 * that counts more buckets (or a count lowered since) puts tasks there, and each such claim is a statement more,
	 * which a queue that is often short (an idle one at each poll) would otherwise pay every time.
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

	/** Makes the next claim of every bucket scan it from its start, because tasks that sort early may be ready again. */
	void claimFromStart() {
		this.restarts.incrementAndGet();
	}

}
