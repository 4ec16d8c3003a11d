package dev.taskqueue;

import java.time.Duration;

/**
 * The failure of an attempt whose handler ran past its queue's timeout ({@code taskqueue.queues.<name>.timeout},
 * else {@code taskqueue.worker.timeout}): its thread was interrupted and its transaction rolled back. A
 * {@link RetryPolicy} receives it as the failure, so a policy can treat timeouts apart; the dead letters' error text
 * starts with its name and message, and its stack trace is where the handler was when its time ran out.
 */
public final class HandlerTimeoutException extends RuntimeException {

	private final Duration timeout;

	/**
	 * @param queue the task's queue
	 * @param timeout the queue's timeout that the handler overran
	 */
	public HandlerTimeoutException(String queue, Duration timeout) {
		super("The handler did not finish within " + timeout + " (taskqueue.queues." + queue + ".timeout); its thread "
				+ "was interrupted");
		this.timeout = timeout;
	}

	/** The queue's timeout that the handler overran. */
	public Duration timeout() {
		return this.timeout;
	}

}
