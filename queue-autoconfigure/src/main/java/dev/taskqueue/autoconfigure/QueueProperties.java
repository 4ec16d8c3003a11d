package dev.taskqueue.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * The settings of one queue, under {@code taskqueue.queues.<name>}; they take precedence over the handler's
 * annotation attributes and over {@code taskqueue.worker}.
 */
public class QueueProperties {

	/**
	 * How many tasks of this queue may run at once in this instance.
	 */
	private @Nullable Integer concurrency;

	/**
	 * How many times a task of this queue is tried, the first run included.
	 */
	private @Nullable Integer maxAttempts;

	/**
	 * How long a handler of this queue may run before it is interrupted and its task counted as failed.
	 */
	private @Nullable Duration timeout;

	/**
	 * The most tasks of this queue committed together by one transaction, each in a savepoint; 1 gives every
	 * task a transaction of its own.
	 */
	private @Nullable Integer groupCommitSize;

	/**
	 * The most tasks of this queue running at once across all instances, on top of each instance's own
	 * concurrency; no limit when not set.
	 */
	private @Nullable Integer globalConcurrency;

	@NestedConfigurationProperty
	private final RateLimitProperties rateLimit = new RateLimitProperties();

	/**
	 * How many buckets this queue's tasks are spread over by a hash of their id (1 to 256), each claim reading
	 * one bucket's head first and the next claim the next bucket, so that many instances do not all claim at
	 * the head of one index. Priority order holds within a bucket only; 1 keeps one strict order. Set it
	 * alike on the instances that enqueue and those that run the queue; a mismatch strands nothing. When not
	 * set: 1 on PostgreSQL, 16 on CockroachDB and YugabyteDB, where one index head is one hot range.
	 */
	private @Nullable Integer buckets;

	public @Nullable Integer getBuckets() {
		return this.buckets;
	}

	public void setBuckets(@Nullable Integer buckets) {
		this.buckets = buckets;
	}

	public @Nullable Integer getGlobalConcurrency() {
		return this.globalConcurrency;
	}

	public void setGlobalConcurrency(@Nullable Integer globalConcurrency) {
		this.globalConcurrency = globalConcurrency;
	}

	public RateLimitProperties getRateLimit() {
		return this.rateLimit;
	}

	public @Nullable Integer getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(@Nullable Integer concurrency) {
		this.concurrency = concurrency;
	}

	public @Nullable Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(@Nullable Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public @Nullable Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(@Nullable Duration timeout) {
		this.timeout = timeout;
	}

	public @Nullable Integer getGroupCommitSize() {
		return this.groupCommitSize;
	}

	public void setGroupCommitSize(@Nullable Integer groupCommitSize) {
		this.groupCommitSize = groupCommitSize;
	}

}
