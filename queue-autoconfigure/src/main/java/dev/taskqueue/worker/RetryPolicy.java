package dev.taskqueue.worker;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a failed task waits before its next attempt: exponential growth from {@code initialDelay} by
 * {@code multiplier}, capped at {@code maxDelay}, then shortened at random by up to {@code jitter} of itself so
 * tasks that failed together do not retry together.
 *
 * @param initialDelay the delay after the first failed attempt
 * @param multiplier the growth factor per further attempt, at least 1
 * @param maxDelay the longest delay
 * @param jitter the random fraction, from 0 to 1
 */
public record RetryPolicy(Duration initialDelay, double multiplier, Duration maxDelay, double jitter) {

	public RetryPolicy {
		if (multiplier < 1.0 || jitter < 0.0 || jitter > 1.0) {
			throw new IllegalArgumentException("multiplier must be at least 1 and jitter from 0 to 1");
		}
	}

	/**
	 * The delay after attempt number {@code failedAttempt} (1 for the first run) failed.
	 */
	public Duration delayAfter(int failedAttempt) {
		double base = this.initialDelay.toNanos() * Math.pow(this.multiplier, Math.max(0, failedAttempt - 1));
		double capped = Math.min(base, this.maxDelay.toNanos());
		double jittered = capped * (1.0 - this.jitter * ThreadLocalRandom.current().nextDouble());
		return Duration.ofNanos((long) jittered);
	}

}
