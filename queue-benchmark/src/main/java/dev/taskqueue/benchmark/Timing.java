package dev.taskqueue.benchmark;

import java.lang.management.ManagementFactory;

import com.sun.management.OperatingSystemMXBean;

/**
 * How long a measurement took on the wall clock, and how much CPU this JVM (library or baseline, and everything
 * else it runs) spent meanwhile: on two cores, the client's CPU is taken from the database server.
 *
 * @param nanos wall-clock nanoseconds
 * @param cpuNanos CPU nanoseconds of all threads of this JVM
 */
record Timing(long nanos, long cpuNanos) {

	private static final OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	/** The CPU time this JVM has used so far. */
	static long cpuNow() {
		return os.getProcessCpuTime();
	}

	/** From {@code startNanos} ({@link System#nanoTime()}) and {@code startCpuNanos} ({@link #cpuNow()}) until now. */
	static Timing since(long startNanos, long startCpuNanos) {
		return new Timing(System.nanoTime() - startNanos, cpuNow() - startCpuNanos);
	}

	/** {@code count} things per second. */
	Metric rate(long count) {
		return Metric.rate(count, this.nanos);
	}

	/** The JVM's CPU microseconds per thing. */
	Metric cpuPer(long count) {
		return new Metric("jvm-cpu", this.cpuNanos / 1000.0 / count, "us");
	}

}
