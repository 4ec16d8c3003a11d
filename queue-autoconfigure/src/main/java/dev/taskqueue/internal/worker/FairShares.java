package dev.taskqueue.internal.worker;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Whether the claim loop claims a queue fairly (docs/fairness.md), and from which fairness key: one per queue, kept
 * by the claim loop's thread; the listening thread reads the state ({@link #soleKey}) and counts its own claims
 * ({@link #notifiedClaimed}), see {@link NotifiedKeyClaims}. The fair claim is needed only while two tenants (keys, or the tasks without one)
 * have due tasks; with one, the queue's order is that tenant's, and the plain claim takes it at the plain claim's
 * cost. So a queue is in one of three states:
 * <ul>
 * <li><em>plain</em>: no key has due tasks. Its claim statement stays exactly as it is; once a second the loop asks
 * the partial index of keyed tasks for the queue's tenants ({@link #mayProbe}), one index probe that finds nothing
 * in a queue that never uses a key; two tenants make it fair, one key a queue with one key.</li>
 * <li><em>one key</em> ({@link #soleKey}): the plain claim, and at most every {@link #WATCH_INTERVAL} (also when
 * the queue has no room), one probe for the next other key with due tasks, round-robin from {@link #roundStart}
 * ({@link #mayWatch}); when there is one, a claim of its first tasks, which go to the threads first, the plain claim
 * for the rest, and at once the next ask ({@link #turnTaken}). The enqueue of another key's task has the listening
 * thread claim it at once; such a claim counts as an ask that found a key.</li>
 * <li><em>fair</em> ({@link #after}): the fair claim, each starting after the key the previous one listed last,
 * until one finds a single tenant.</li>
 * </ul>
 * A queue with one key goes fair only when for a second every ask found another key: while the others' tasks are
 * claimed as they show up, the asks serve them sooner than fair claims, which queue them behind the tasks claimed
 * ahead. The probe of the tenants runs in the plain state only: in the others it would read past the entries the
 * claimed tasks left at the start of the indexes, which only the claims' positions and the asks step over. So a queue
 * whose keys are all gone stays in the one-key state: its claims are the plain ones, and the asks find nothing.
 */
final class FairShares {

	/** How often the loop counts a queue's tenants with due tasks. */
	static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

	/** How often, at most, a queue claimed in its order while one key has due tasks asks for another key. */
	static final Duration WATCH_INTERVAL = Duration.ofMillis(2);

	/** The key the next fair claim starts after ({@code ""} for the first); {@code null} while claims are plain. */
	private volatile @Nullable String after;

	/**
	 * The one key with due tasks while claims are plain and it has some; {@code null} when no key has. Volatile: the
	 * listening thread reads it.
	 */
	private volatile @Nullable String soleKey;

	/** How many claims of the listening thread took tasks (written by that thread only). */
	private volatile long notifiedClaims;

	/** {@link #notifiedClaims} when an ask last looked at it. */
	private long notifiedSeen;

	/** Where the round of keys stopped, kept while claims are plain for the next fair claim. */
	private String lastKey = "";

	private long nextProbe;

	private long nextWatch;

	/** Whether a round skipped the ask for another key because it came too soon: then it is owed at nextWatch. */
	private boolean owed;

	/** When, while one key is claimed in the queue's order, an ask last found no other key (or the state began). */
	private long lastNoOther;

	private boolean probed;

	/** Whether the next claim is fair, and after which key; {@code null} for the plain claim. */
	@Nullable String after() {
		return this.after;
	}

	/** The one key with due tasks of a queue claimed in its order, or {@code null}. */
	@Nullable String soleKey() {
		return this.soleKey;
	}

	/**
	 * The key whose newly enqueued tasks the listening thread may claim: while the queue is claimed in the order of
	 * one key, every key but that one; {@code null} for none (plain, fair). Read by the listening thread.
	 */
	@Nullable String claimedInOrder() {
		return (this.after == null) ? this.soleKey : null;
	}

	/** The listening thread claimed tasks of a key beside the one key: what the next ask counts as found. */
	void notifiedClaimed() {
		this.notifiedClaims++; // one writer, the listening thread
	}

	/** Whether to count the queue's tenants now, {@code now} from {@link System#nanoTime()}. */
	boolean mayProbe(long now) {
		return this.after == null && this.soleKey == null && (!this.probed || now - this.nextProbe >= 0);
	}

	/** What the count of the tenants found (at most 2): the state it sets. */
	void probed(ClaimResult.FairTenants tenants, long now) {
		this.probed = true;
		this.nextProbe = now + PROBE_INTERVAL.toNanos();
		if (tenants.count() >= 2) {
			this.soleKey = null;
			this.after = this.lastKey;
		}
		else {
			toSoleKey(tenants.soleKey(), now);
		}
	}

	/**
	 * Whether a queue claimed in its order while one key has due tasks should ask for another key now; when it is too
	 * soon, the ask is owed ({@link #watchOwedIn}).
	 */
	boolean mayWatch(long now) {
		if (this.after != null || this.soleKey == null) {
			return false;
		}
		boolean may = now - this.nextWatch >= 0;
		this.owed |= !may;
		return may;
	}

	/**
	 * In how many nanoseconds from {@code now} ({@link System#nanoTime()}) a queue claimed in its order while one key
	 * has due tasks owes an ask for another key (0 when at once), or -1 when it owes none.
	 */
	long watchOwedIn(long now) {
		return (this.owed && this.after == null && this.soleKey != null) ? Math.max(0, this.nextWatch - now) : -1;
	}

	/** The loop asked for another key now: the next ask comes {@link #WATCH_INTERVAL} later. */
	void watched(long now) {
		this.nextWatch = now + WATCH_INTERVAL.toNanos();
		this.owed = false;
	}

	/** The key the ask for another key starts after, while one key is claimed in the queue's order. */
	String roundStart() {
		return this.lastKey;
	}

	/**
	 * The loop claimed tasks of {@code key}, found beside the one key: the round goes on and, if it {@code took} some,
	 * the next ask is owed at once.
	 */
	void turnTaken(String key, boolean took, long now) {
		this.lastKey = key;
		if (took) {
			this.nextWatch = now;
			this.owed = true;
		}
	}

	/** What a fair claim did: where the next one starts, or back to the plain claim when it found one tenant. */
	void claimed(ClaimResult result, long now) {
		if (this.after == null) {
			return;
		}
		if (result.nextFairnessKey() != null) {
			this.lastKey = result.nextFairnessKey();
		}
		this.after = this.lastKey;
		ClaimResult.FairTenants tenants = result.fairTenants();
		if (tenants != null && tenants.count() <= 1) {
			// Took tasks of one tenant: its order is the queue's (or no key is due, which the probe finds again).
			toSoleKey(tenants.soleKey(), now);
			this.nextWatch = now;
		}
	}

	/** Plain claims, and with {@code key} the asks for another key. */
	private void toSoleKey(@Nullable String key, long now) {
		if (this.soleKey == null || this.after != null) {
			this.lastNoOther = now;
		}
		this.after = null;
		this.soleKey = key;
	}

	/**
	 * What the ask for another key found: nothing (then the queue stays in its order), or a key to claim; when every
	 * ask of a second found one, or came after a claim of the listening thread, the claims become fair: a lasting
	 * second tenant, whose every enqueue the listening thread would otherwise claim before the one key's tasks.
	 */
	void found(@Nullable String other, long now) {
		long notified = this.notifiedClaims;
		boolean claimedOnNotify = notified != this.notifiedSeen;
		this.notifiedSeen = notified;
		if (other == null && !claimedOnNotify) {
			this.lastNoOther = now;
		}
		else if (now - this.lastNoOther >= PROBE_INTERVAL.toNanos()) {
			// Every ask for a second found another key: a lasting second tenant, which fair claims serve better.
			this.soleKey = null;
			this.after = this.lastKey;
		}
	}

}
