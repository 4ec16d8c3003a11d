package dev.taskqueue;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Decides what becomes of a task whose attempt failed: tried again after a delay, or sent to the dead letters now.
 * This is the one place where a failure becomes a retry.
 * <p>
 * TaskQueue asks the policy of the task's queue after every failed attempt that has attempts left (see
 * {@link TaskHandler#maxAttempts()}) and did not throw {@link NonRetryableTaskException}: those go to the dead
 * letters without asking. A handler that ran past its queue's timeout failed too, with a
 * {@link HandlerTimeoutException}. The default policy is {@link #exponentialBackoff exponential backoff} from
 * {@code taskqueue.retry.backoff.*}.
 * <p>
 * Name a bean of this type in {@link TaskHandler#retryPolicy()} to give one queue a policy of its own; declare one
 * named {@code taskQueueRetryPolicy} to replace the default of every other queue. A policy runs on the handler's
 * thread after its transaction has rolled back; it must be quick and must not throw (a policy that throws retries
 * the task after a second).
 */
@FunctionalInterface
public interface RetryPolicy {

	/**
	 * How long {@code task} waits before its next attempt.
	 * @param task the task; {@link TaskContext#attempt()} is the attempt that failed, 1 for the first run
	 * @param failure what the handler threw
	 * @return the delay before attempt {@code task.attempt() + 1}, zero or more; {@code null} to send the task to the
	 * dead letters now
	 */
	@Nullable Duration nextAttemptDelay(TaskContext task, Throwable failure);

	/**
	 * Exponential backoff: {@code initialDelay} after the first failed attempt, growing by {@code multiplier} per
	 * further attempt up to {@code maxDelay}, then shortened at random by up to {@code jitter} of itself so that
	 * tasks that failed together do not retry together.
	 * @param initialDelay the delay after the first failed attempt, not negative
	 * @param multiplier the growth factor per further attempt, at least 1
	 * @param maxDelay the longest delay, not negative
	 * @param jitter the random fraction, from 0 to 1
	 * @throws IllegalArgumentException if an argument is out of its range
	 */
	static RetryPolicy exponentialBackoff(Duration initialDelay, double multiplier, Duration maxDelay,
			double jitter) {
		return new ExponentialBackoff(initialDelay, multiplier, maxDelay, jitter);
	}

}
