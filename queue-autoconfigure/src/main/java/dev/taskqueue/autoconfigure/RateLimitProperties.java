package dev.taskqueue.autoconfigure;

import java.time.Duration;

import dev.taskqueue.jdbc.QueueLimits;
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

	/**
	 * The limits of a queue, checked: {@code property} is the queue's property prefix, which the messages name.
	 * @throws IllegalArgumentException naming the property at fault
	 */
	static QueueLimits limits(@Nullable Integer globalConcurrency, RateLimitProperties rate, String property) {
		if (globalConcurrency != null && globalConcurrency < 1) {
			throw new IllegalArgumentException(
					property + ".global-concurrency must be at least 1 but was " + globalConcurrency);
		}
		Integer limit = rate.limit;
		Duration period = rate.period;
		if ((limit == null) != (period == null)) {
			throw new IllegalArgumentException(property + ".rate-limit.limit and " + property
					+ ".rate-limit.period must be set together, but only " + property + ".rate-limit."
					+ ((limit != null) ? "limit" : "period") + " is set");
		}
		if (limit != null && limit < 1) {
			throw new IllegalArgumentException(property + ".rate-limit.limit must be at least 1 but was " + limit);
		}
		if (period != null && period.compareTo(MIN_PERIOD) < 0) {
			throw new IllegalArgumentException(
					property + ".rate-limit.period must be at least " + MIN_PERIOD.toMillis() + "ms but was " + period);
		}
		return new QueueLimits((globalConcurrency != null) ? globalConcurrency : 0, (limit != null) ? limit : 0,
				period);
	}

}
