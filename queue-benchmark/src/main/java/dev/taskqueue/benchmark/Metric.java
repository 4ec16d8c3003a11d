package dev.taskqueue.benchmark;

import java.util.Locale;

/**
 * One named number of a result, with its unit.
 *
 * @param name what it is, e.g. {@code rate} or {@code p99}
 * @param value the number
 * @param unit {@code /s}, {@code ms}, {@code us}, {@code MB}, {@code x} for ratios, or empty for counts
 */
record Metric(String name, double value, String unit) {

	/** Things per second over {@code nanos} nanoseconds. */
	static Metric rate(long count, long nanos) {
		return rate("rate", count, nanos);
	}

	static Metric rate(String name, long count, long nanos) {
		return new Metric(name, count * 1e9 / nanos, "/s");
	}

	static Metric millis(String name, double millis) {
		return new Metric(name, millis, "ms");
	}

	static Metric megabytes(String name, long bytes) {
		return new Metric(name, bytes / (1024.0 * 1024.0), "MB");
	}

	static Metric count(String name, long count) {
		return new Metric(name, count, "");
	}

	static Metric ratio(String name, double ratio) {
		return new Metric(name, ratio, "x");
	}

	/** The same metric with another value, e.g. a median. */
	Metric withValue(double value) {
		return new Metric(this.name, value, this.unit);
	}

	/** {@code name=value}, e.g. {@code rate=5123/s}. */
	@Override
	public String toString() {
		return this.name + "=" + formattedValue();
	}

	String formattedValue() {
		return switch (this.unit) {
			case "/s", "us" -> String.format(Locale.ROOT, "%.0f%s", this.value, this.unit);
			case "ms", "MB" -> String.format(Locale.ROOT, "%.1f%s", this.value, this.unit);
			case "x" -> String.format(Locale.ROOT, "%.2f", this.value);
			default -> String.format(Locale.ROOT, "%.0f", this.value);
		};
	}

}
