package dev.taskqueue.internal.worker;

/**
 * A handler ran past its queue's timeout: the failure its attempt is recorded with, its stack trace where the
 * handler was stuck.
 */
final class HandlerTimeoutException extends RuntimeException {

	private HandlerTimeoutException(String message) {
		super(message);
	}

	/** The failure of {@code task}, whose handler overran {@code settings}' timeout on {@code handlerThread}. */
	static HandlerTimeoutException of(String queue, QueueSettings settings, Thread handlerThread) {
		HandlerTimeoutException timeout = new HandlerTimeoutException("The handler did not finish within "
				+ settings.timeout() + " (taskqueue.queues." + queue + ".timeout); its thread was interrupted");
		timeout.setStackTrace(handlerThread.getStackTrace()); // where the handler was stuck
		return timeout;
	}

}
