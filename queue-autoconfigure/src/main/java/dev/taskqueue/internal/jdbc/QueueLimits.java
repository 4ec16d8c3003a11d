package dev.taskqueue.internal.jdbc;

import java.time.Duration;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * The cluster-wide limits of one queue ({@code taskqueue.queues.<name>.global-concurrency} and
 * {@code .rate-limit.*}). A queue without any claims as it always did; one with a limit claims through
 * the worker's {@code LimitedClaims}.
 *
 * @param globalConcurrency the most tasks of the queue claimed at once across all instances, 0 for no limit
 * @param rateLimit the most task starts of the queue per {@code ratePeriod}, 0 for no limit
 * @param ratePeriod the length of a rate window, {@code null} without a rate limit
 * @param rateWindow which windows the rate limit bounds; without a rate limit it means nothing
 */
public record QueueLimits(int globalConcurrency, int rateLimit, @Nullable Duration ratePeriod, RateWindow rateWindow) {

	/** No limit at all. */
	public static final QueueLimits NONE = new QueueLimits(0, 0, null, RateWindow.SLIDING);

	public QueueLimits {
		if (globalConcurrency < 0 || rateLimit < 0) {
			throw new IllegalArgumentException("globalConcurrency and rateLimit must not be negative");
		}
		if ((rateLimit > 0) != (ratePeriod != null)) {
			throw new IllegalArgumentException("a rate limit needs both a limit and a period");
		}
		if (ratePeriod != null && (ratePeriod.isNegative() || Micros.of(ratePeriod) < 1)) {
			throw new IllegalArgumentException("ratePeriod must be at least a microsecond but was " + ratePeriod);
		}
	}

	/** Whether the queue has a limit, so that its claims must go through the worker's {@code LimitedClaims}. */
	public boolean any() {
		return this.globalConcurrency > 0 || this.rateLimit > 0;
	}

	/** Whether the queue has a global concurrency limit. */
	public boolean concurrencyLimited() {
		return this.globalConcurrency > 0;
	}

	/** Whether the queue has a rate limit. */
	public boolean rateLimited() {
		return this.rateLimit > 0;
	}

	/** How the limits read in a log line. */
	public String describe() {
		return (concurrencyLimited() ? "global-concurrency " + this.globalConcurrency : "")
				+ ((concurrencyLimited() && rateLimited()) ? ", " : "")
				+ (rateLimited() ? "rate-limit " + this.rateLimit + " per " + this.ratePeriod + " ("
						+ this.rateWindow.name().toLowerCase(Locale.ROOT) + " window)" : "");
	}

	/** Which intervals a rate limit bounds. */
	public enum RateWindow {

		/**
		 * Every interval of the period's length, wherever it begins: at each claim, the starts of the last period
		 * and the claim's own are at most the limit.
		 */
		SLIDING,

		/**
		 * Fixed windows aligned on the database clock ({@code [epoch + k * period, epoch + (k + 1) * period)}); up
		 * to twice the limit can start within one period that straddles two windows.
		 */
		FIXED

	}

}
