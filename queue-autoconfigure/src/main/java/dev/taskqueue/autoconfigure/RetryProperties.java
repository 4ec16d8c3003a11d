package dev.taskqueue.autoconfigure;

import java.time.Duration;

/**
 * How failed tasks are tried again, under {@code taskqueue.retry}.
 */
public class RetryProperties {

	// 20 so that a task failing through an outage of an hour or more is still retried after it: five attempts
	// dead-lettered a task 15 s after its first failure, so a one-minute outage emptied every queue into the dead
	// letters (Sidekiq retries 25 times over about three weeks, River 25, Oban 20).
	/**
	 * How many times a task is tried, the first run included, before it goes to the dead letters. With the default
	 * backoff, the 20th attempt comes at least 6.5 hours (8 hours without jitter) after the first failure.
	 */
	private int maxAttempts = 20;

	private final Backoff backoff = new Backoff();

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Backoff getBackoff() {
		return this.backoff;
	}

	/** The waits between the attempts of a task. */
	public static class Backoff {

		/**
		 * Delay before the second attempt.
		 */
		private Duration initialDelay = Duration.ofSeconds(1);

		/**
		 * Factor by which the delay grows with each further attempt.
		 */
		private double multiplier = 2.0;

		// An hour: from the 13th attempt on a task waits about an hour between tries, long enough for an outage to
		// end without hammering the database, short enough that the task runs soon after it.
		/**
		 * Longest delay between two attempts.
		 */
		private Duration maxDelay = Duration.ofHours(1);

		/**
		 * Fraction of each delay, from 0 to 1, taken off at random so that failed tasks do not retry in step.
		 */
		private double jitter = 0.2;

		public Duration getInitialDelay() {
			return this.initialDelay;
		}

		public void setInitialDelay(Duration initialDelay) {
			this.initialDelay = initialDelay;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public double getJitter() {
			return this.jitter;
		}

		public void setJitter(double jitter) {
			this.jitter = jitter;
		}

	}

}
