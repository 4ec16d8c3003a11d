package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;

/**
 * What a claim of a queue with limits did, see {@link LimitedClaims#claim}.
 *
 * @param claimed the tasks claimed
 * @param heldBy the limit that allows no further claim now, {@link Hold#NONE} when another claim may take more
 * @param retryIn for {@link Hold#RATE}: how long until a start leaves the last period (a sliding window) or the next
 * window begins (a fixed one), on the database clock
 */
record LimitedClaim(List<ClaimedTask> claimed, Hold heldBy, Duration retryIn) {

	/** What holds back the tasks of a limited queue. */
	public enum Hold {

		/** Neither limit is reached. */
		NONE,

		/** As many tasks as {@code global-concurrency} allows are claimed across the instances. */
		SLOT,

		/**
		 * The queue's current rate window (the last period, or the current fixed window) has had its
		 * {@code rate-limit.limit} starts.
		 */
		RATE

	}

}
