package dev.taskqueue;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The default {@link RetryPolicy}, see {@link RetryPolicy#exponentialBackoff}.
 *
 * @param initialDelay the delay after the first failed attempt
 * @param multiplier the growth factor per further attempt, at least 1
 * @param maxDelay the longest delay
 * @param jitter the random fraction, from 0 to 1
 */
record ExponentialBackoff(Duration initialDelay, double multiplier, Duration maxDelay,
		double jitter) implements RetryPolicy {

	ExponentialBackoff {
		if (multiplier < 1.0 || jitter < 0.0 || jitter > 1.0 || initialDelay.isNegative() || maxDelay.isNegative()) {
			throw new IllegalArgumentException("multiplier must be at least 1, jitter from 0 to 1 and the delays not "
					+ "negative; got " + initialDelay + ", " + multiplier + ", " + maxDelay + ", " + jitter);
		}
	}

	@Override
	public Duration nextAttemptDelay(TaskContext task, Throwable failure) {
		return delayAfter(task.attempt());
	}

	/** The delay after attempt number {@code failedAttempt} (1 for the first run) failed. */
	Duration delayAfter(int failedAttempt) {
		double base = this.initialDelay.toNanos() * Math.pow(this.multiplier, Math.max(0, failedAttempt - 1));
		double capped = Math.min(base, this.maxDelay.toNanos());
		double jittered = capped * (1.0 - this.jitter * ThreadLocalRandom.current().nextDouble());
		return Duration.ofNanos((long) jittered);
	}

	@Override
	public String toString() {
		return "exponential backoff from " + this.initialDelay + " by " + this.multiplier + " up to " + this.maxDelay
				+ ((this.jitter > 0) ? ", jitter " + this.jitter : "");
	}

}
