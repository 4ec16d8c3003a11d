package dev.taskqueue.autoconfigure;

import java.time.Duration;

/**
 * How failed tasks are tried again, under {@code taskqueue.retry}.
 */
public class RetryProperties {

	/**
	 * How many times a task is tried, the first run included, before it goes to the dead letters.
	 */
	private int maxAttempts = 5;

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

		/**
		 * Longest delay between two attempts.
		 */
		private Duration maxDelay = Duration.ofMinutes(10);

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
