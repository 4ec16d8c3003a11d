package dev.taskqueue.internal.worker;

import java.time.Duration;

/**
 * How the worker of this instance runs.
 *
 * @param pollInterval the wait before looking for ready tasks again after finding none
 * @param heartbeatInterval how often the session proves it is alive and expired sessions are looked for
 * @param sessionTimeout how long a silent session lives before other instances release its tasks
 * @param shutdownTimeout how long shutdown waits for running handlers
 * @param maxHandlers how many handlers may run at once over all queues, so that they never wait for a
 * connection the pool does not have ({@link Integer#MAX_VALUE} when the pool size is unknown)
 * @param virtualThreads whether handlers run on virtual threads
 * @param completionBatchSize the most completions of batched handlers written by one statement
 * @param completionFlushInterval how long a batched completion waits for others before it is written
 * @param maxPrefetch the most tasks a queue holds claimed beyond those its threads run
 */
public record WorkerSettings(Duration pollInterval, Duration heartbeatInterval, Duration sessionTimeout,
		Duration shutdownTimeout, int maxHandlers, boolean virtualThreads, int completionBatchSize,
		Duration completionFlushInterval, int maxPrefetch) {
}
