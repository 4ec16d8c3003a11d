package dev.taskqueue.autoconfigure;

import java.time.Duration;

import dev.taskqueue.internal.jdbc.QueueLimits;
import org.jspecify.annotations.Nullable;

/**
 * A queue's rate limit ({@code taskqueue.queues.<name>.rate-limit.*}): at most {@code limit} task starts per
 * {@code period} across all instances, in fixed windows aligned on the database clock. Set both or neither.
 */
public class RateLimitProperties {

	/** The shortest rate window: shorter ones would make every claim of the queue a lock turn per few tasks. */
	static final Duration MIN_PERIOD = Duration.ofMillis(1);

	/**
	 * The most tasks of this queue started per period across all instances; no rate limit when not set.
	 */
	private @Nullable Integer limit;

	/**
	 * The length of a rate window, for example 1s; windows are fixed and aligned on the database clock.
	 */
	private @Nullable Duration period;

	public @Nullable Integer getLimit() {
		return this.limit;
	}

	public void setLimit(@Nullable Integer limit) {
		this.limit = limit;
	}

	public @Nullable Duration getPeriod() {
		return this.period;
	}

	public void setPeriod(@Nullable Duration period) {
		this.period = period;
	}

	/** The limits of a queue, as bound (TaskQueuePropertiesValidation has checked them). */
	static QueueLimits limits(@Nullable Integer globalConcurrency, RateLimitProperties rate) {
		return new QueueLimits((globalConcurrency != null) ? globalConcurrency : 0,
				(rate.limit != null) ? rate.limit : 0, rate.period);
	}

}
