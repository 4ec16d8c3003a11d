package dev.taskqueue.autoconfigure;

import java.time.Duration;

import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.QueueLimits.RateWindow;
import org.jspecify.annotations.Nullable;

/**
 * A queue's rate limit ({@code taskqueue.queues.<name>.rate-limit.*}): at most {@code limit} task starts per
 * {@code period} across all instances, on the database clock, in every interval of that length or in fixed
 * windows ({@code window}). Set both or neither.
 */
public class RateLimitProperties {

	/** The shortest rate window: shorter ones would make every claim of the queue a lock turn per few tasks. */
	static final Duration MIN_PERIOD = Duration.ofMillis(1);

	/**
	 * The most tasks of this queue started per period across all instances; no rate limit when not set.
	 */
	private @Nullable Integer limit;

	/**
	 * The length of a rate window, for example 1s, on the database clock.
	 */
	private @Nullable Duration period;

	/**
	 * Which windows the limit bounds: 'sliding' (every interval of the period's length, wherever it begins) or
	 * 'fixed' (windows aligned on the database clock, cheaper but up to twice the limit can start within one
	 * period that straddles two windows).
	 */
	private Window window = Window.SLIDING;

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

	public Window getWindow() {
		return this.window;
	}

	public void setWindow(Window window) {
		this.window = window;
	}

	/** The limits of a queue, as bound (TaskQueuePropertiesValidation has checked them). */
	static QueueLimits limits(@Nullable Integer globalConcurrency, RateLimitProperties rate) {
		return new QueueLimits((globalConcurrency != null) ? globalConcurrency : 0,
				(rate.limit != null) ? rate.limit : 0, rate.period,
				(rate.window == Window.FIXED) ? RateWindow.FIXED : RateWindow.SLIDING);
	}

	/** Which windows a rate limit bounds. */
	public enum Window {

		/** Every interval of the period's length, wherever it begins. */
		SLIDING,

		/** Windows aligned on the database clock: {@code [epoch + k * period, epoch + (k + 1) * period)}. */
		FIXED

	}

}
