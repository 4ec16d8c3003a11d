package dev.taskqueue.autoconfigure;

import java.time.Duration;

/**
 * How TaskQueue's own transactions and statements run again after a serialization failure (SQLSTATE 40001) or a
 * deadlock (40P01), under {@code taskqueue.serialization-retry}; see docs/databases.md.
 */
public class SerializationRetryProperties {

	/**
	 * How often TaskQueue tries one of its own transactions or statements in all (claims, completions, retries,
	 * dead letters, heartbeats, sweeps, schedule ticks, and a TRANSACTIONAL handler's transaction, handler
	 * included) when the database fails it with a serialization failure or a deadlock; 1 turns retrying off.
	 */
	private int maxAttempts = 10;

	/**
	 * The wait before the first retry; each further retry waits twice as long, each wait cut by up to half at
	 * random so that colliding instances do not collide again.
	 */
	private Duration initialDelay = Duration.ofMillis(5);

	/**
	 * The longest wait before a retry.
	 */
	private Duration maxDelay = Duration.ofMillis(500);

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Duration getInitialDelay() {
		return this.initialDelay;
	}

	public void setInitialDelay(Duration initialDelay) {
		this.initialDelay = initialDelay;
	}

	public Duration getMaxDelay() {
		return this.maxDelay;
	}

	public void setMaxDelay(Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

}
