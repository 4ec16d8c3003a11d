package dev.taskqueue.internal.worker;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * The recent claims of a queue with a sliding rate limit, kept in its row of {@code taskqueue_queue}
 * ({@code rate_log_micros}, {@code rate_log_starts}): pairs of a time on the database clock, in microseconds since
 * the epoch, and how many tasks were claimed then, oldest first.
 * <p>
 * Why it is exact: a claim at {@code t} (its transaction's {@code now()}, which is the {@code claimed_at} it
 * writes) takes only what leaves the starts logged in {@code (t - period, t]} at most the limit, and claims are
 * logged in the order of their times ({@link #latest()} is never after a new claim's time). Any interval
 * {@code [a, a + period)} holds starts whose times lie in {@code (t - period, t]} for its last start {@code t}: when
 * that start was claimed, they were all counted. A pair may stand for several claims, at the time of the latest
 * (see {@link #add}): a start is then logged at a time at most one grain after it happened, never before, so it
 * counts for a little longer than needed and never for less.
 * <p>
 * Size: the claims of one grain (a hundredth of the period) share a pair, so the log holds at most 101 pairs
 * after pruning, whatever the limit.
 */
final class RateLog {

	/** How many grains a period has: the most pairs of one period, and how much later a start may be logged. */
	static final int GRAINS_PER_PERIOD = 100;

	private static final RateLog EMPTY = new RateLog(new Long[0], new Long[0]);

	private final Long[] micros;

	private final Long[] starts;

	private RateLog(Long[] micros, Long[] starts) {
		this.micros = micros;
		this.starts = starts;
	}

	/** The log as the row holds it; {@code null} columns (a queue never claimed with a sliding limit) are empty. */
	static RateLog of(@Nullable Object micros, @Nullable Object starts) {
		if (micros == null || starts == null) {
			return EMPTY;
		}
		Object[] times = (Object[]) micros;
		Object[] counts = (Object[]) starts;
		if (times.length != counts.length) {
			throw new IllegalStateException("A rate log's times and starts differ in length: " + times.length
					+ " and " + counts.length);
		}
		Long[] t = new Long[times.length];
		Long[] n = new Long[counts.length];
		for (int i = 0; i < times.length; i++) {
			t[i] = ((Number) times[i]).longValue();
			n[i] = ((Number) counts[i]).longValue();
		}
		return new RateLog(t, n);
	}

	/** The time of the newest pair, {@link Long#MIN_VALUE} when the log is empty. */
	long latest() {
		return (this.micros.length > 0) ? this.micros[this.micros.length - 1] : Long.MIN_VALUE;
	}

	/** The starts logged after {@code fromMicros} (excluded). */
	long startsAfter(long fromMicros) {
		long sum = 0;
		for (int i = 0; i < this.micros.length; i++) {
			if (this.micros[i] > fromMicros) {
				sum += this.starts[i];
			}
		}
		return sum;
	}

	/** The time of the oldest pair after {@code fromMicros} (excluded), {@code null} when there is none. */
	@Nullable Long oldestAfter(long fromMicros) {
		for (long time : this.micros) {
			if (time > fromMicros) {
				return time;
			}
		}
		return null;
	}

	/**
	 * This log with {@code count} starts at {@code nowMicros} (not before {@link #latest()}) and without the pairs
	 * that no longer count ({@code periodMicros} or more before {@code nowMicros}). The starts join the newest pair,
	 * which moves to {@code nowMicros}, when that pair is of the same grain.
	 */
	RateLog add(long nowMicros, long count, long periodMicros) {
		if (nowMicros < latest()) {
			throw new IllegalArgumentException("A claim at " + nowMicros + " is older than the log's " + latest());
		}
		int first = 0;
		while (first < this.micros.length && this.micros[first] <= nowMicros - periodMicros) {
			first++;
		}
		int kept = this.micros.length - first;
		long grain = Math.max(1, periodMicros / GRAINS_PER_PERIOD);
		boolean join = kept > 0
				&& Math.floorDiv(this.micros[this.micros.length - 1], grain) == Math.floorDiv(nowMicros, grain);
		int size = join ? kept : kept + 1;
		Long[] times = Arrays.copyOfRange(this.micros, first, first + size);
		Long[] counts = Arrays.copyOfRange(this.starts, first, first + size);
		times[size - 1] = nowMicros;
		counts[size - 1] = (join ? counts[size - 1] : 0) + count;
		return new RateLog(times, counts);
	}

	/** The times, as the row keeps them. */
	Long[] micros() {
		return this.micros;
	}

	/** The starts at each time, as the row keeps them. */
	Long[] starts() {
		return this.starts;
	}

}
