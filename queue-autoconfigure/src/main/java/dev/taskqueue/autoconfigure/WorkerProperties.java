package dev.taskqueue.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The worker settings of every queue, under {@code taskqueue.worker}; a queue may set its own
 * ({@link QueueProperties}).
 */
public class WorkerProperties {

	/**
	 * Whether this instance runs handlers; when off it can still enqueue.
	 */
	private boolean enabled = true;

	/**
	 * How many tasks of one queue may run at once in this instance, unless the queue sets its own.
	 */
	private int concurrency = 4;

	/**
	 * How long a worker waits before looking for ready tasks again after finding none.
	 */
	private Duration pollInterval = Duration.ofMillis(500);

	/**
	 * How often this instance proves it is alive, looks for sessions that are not, and (without LISTEN/NOTIFY)
	 * learns that tasks it runs were cancelled.
	 */
	private Duration heartbeatInterval = Duration.ofSeconds(5);

	/**
	 * How long a session may go without a heartbeat before other instances release its tasks.
	 */
	private Duration sessionTimeout = Duration.ofSeconds(30);

	/**
	 * How long shutdown waits, in all, for running handlers to finish and waiting completions to be written; then
	 * it interrupts what is left.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(30);

	/**
	 * How long a handler may run before it is interrupted and its task counted as failed, unless the queue
	 * sets its own.
	 */
	private Duration timeout = Duration.ofMinutes(10);

	/**
	 * The most completions of BATCHED handlers written by one statement. Handlers block while four times as
	 * many wait to be written.
	 */
	private int completionBatchSize = 400;

	/**
	 * How long a completion of a BATCHED handler waits for others before it is written.
	 */
	private Duration completionFlushInterval = Duration.ofMillis(5);

	/**
	 * The most tasks a queue holds claimed beyond those its threads run. While handlers are quick, a queue
	 * claims ahead what its threads finish in about 10 ms, so that claims are large and a thread that finishes
	 * finds its next task at hand; queues whose handlers take 50 ms or more claim only what they start. 0 claims
	 * only what runs.
	 */
	private int maxPrefetch = 512;

	/**
	 * The most tasks of a TRANSACTIONAL queue committed together by one transaction, each handler in a
	 * savepoint of its own, unless the queue sets its own. 1 (the default) gives every task a
	 * transaction of its own; at most 32. Needs a DataSourceTransactionManager (or JdbcTransactionManager).
	 */
	private int groupCommitSize = 1;

	/**
	 * How long a group of tasks may keep taking tasks before it commits. A group also commits as soon as no
	 * claimed task is waiting.
	 */
	private Duration groupCommitMaxDelay = Duration.ofMillis(20);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public int getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(int concurrency) {
		this.concurrency = concurrency;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

	public Duration getHeartbeatInterval() {
		return this.heartbeatInterval;
	}

	public void setHeartbeatInterval(Duration heartbeatInterval) {
		this.heartbeatInterval = heartbeatInterval;
	}

	public Duration getSessionTimeout() {
		return this.sessionTimeout;
	}

	public void setSessionTimeout(Duration sessionTimeout) {
		this.sessionTimeout = sessionTimeout;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public int getCompletionBatchSize() {
		return this.completionBatchSize;
	}

	public void setCompletionBatchSize(int completionBatchSize) {
		this.completionBatchSize = completionBatchSize;
	}

	public int getGroupCommitSize() {
		return this.groupCommitSize;
	}

	public void setGroupCommitSize(int groupCommitSize) {
		this.groupCommitSize = groupCommitSize;
	}

	public Duration getGroupCommitMaxDelay() {
		return this.groupCommitMaxDelay;
	}

	public void setGroupCommitMaxDelay(Duration groupCommitMaxDelay) {
		this.groupCommitMaxDelay = groupCommitMaxDelay;
	}

	public int getMaxPrefetch() {
		return this.maxPrefetch;
	}

	public void setMaxPrefetch(int maxPrefetch) {
		this.maxPrefetch = maxPrefetch;
	}

	public Duration getCompletionFlushInterval() {
		return this.completionFlushInterval;
	}

	public void setCompletionFlushInterval(Duration completionFlushInterval) {
		this.completionFlushInterval = completionFlushInterval;
	}

}
