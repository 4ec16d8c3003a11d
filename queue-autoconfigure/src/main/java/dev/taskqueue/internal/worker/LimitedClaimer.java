package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;


/**
 * The claim loop's side of queues with cluster-wide limits: claims through {@link LimitedClaims}, and remembers
 * when a queue held back by a limit may claim again, so that the loop neither asks the database in vain nor spins.
 * A queue held by its rate limit waits until its next window begins (the database says when). A queue held by
 * its global concurrency waits until one of its tasks here settles (which wakes the loop) or, for the slots held
 * by other instances, until the poll interval has passed: remote completions are seen within the poll interval.
 * Only the claim loop's thread uses it.
 */
final class LimitedClaimer {

	private final LimitedClaims claims;

	private final Duration pollInterval;

	private final Map<QueueState, Wait> waits = new IdentityHashMap<>();

	LimitedClaimer(LimitedClaims claims, Duration pollInterval) {
		this.claims = claims;
		this.pollInterval = pollInterval;
	}

	/** Whether {@code queue} may try a claim now, or waits for a slot or its next rate window. */
	boolean mayClaim(QueueState queue, long now) {
		Wait wait = this.waits.get(queue);
		return wait == null || now - wait.until() >= 0
				|| (wait.hold() == LimitedClaim.Hold.SLOT && queue.inFlight.get() < wait.inFlight());
	}

	/**
	 * Claims up to {@code wanted} tasks of {@code queue}, {@code bucket}'s first, as many as its limits allow. When a
	 * limit holds back the rest, the queue counts as having more, so that a task of it settling here wakes the claim
	 * loop.
	 */
	List<ClaimedTask> claim(QueueState queue, int bucket, UUID session, int wanted) {
		LimitedClaim claim = this.claims.claim(queue.name(), bucket, session, wanted, queue.spec.settings().limits());
		long now = System.nanoTime();
		int inFlight = queue.inFlight.get() + claim.claimed().size(); // what the loop is about to hand over
		switch (claim.heldBy()) {
			case NONE -> this.waits.remove(queue);
			case RATE -> this.waits.put(queue, new Wait(claim.heldBy(), now + claim.retryIn().toNanos(), inFlight));
			case SLOT -> this.waits.put(queue, new Wait(claim.heldBy(), now + this.pollInterval.toNanos(), inFlight));
		}
		return claim.claimed();
	}

	/** Whether the last claim of {@code queue} was cut short by a limit. */
	boolean heldBack(QueueState queue) {
		return this.waits.containsKey(queue);
	}

	/** How long the claim loop may sleep: the poll interval, or less when a rate window opens before. */
	Duration sleep(long now) {
		long nanos = this.pollInterval.toNanos();
		for (Wait wait : this.waits.values()) {
			// A wait that is over but did not lead to a claim (a paused queue, no thread free) shortens nothing.
			if (wait.until() - now > 0) {
				nanos = Math.min(nanos, wait.until() - now);
			}
		}
		return Duration.ofNanos(nanos);
	}

	/**
	 * @param until when to try again at the latest ({@link System#nanoTime()})
	 * @param inFlight the queue's tasks in flight here after the claim; fewer means one settled and freed a slot
	 */
	private record Wait(LimitedClaim.Hold hold, long until, int inFlight) {
	}

}
