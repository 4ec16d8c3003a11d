package dev.taskqueue.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import com.sun.management.OperatingSystemMXBean;

/**
 * How long a measurement took on the wall clock, and how much CPU this JVM spent meanwhile: all of it when the
 * measured work runs on the calling thread ({@link #cpuNow()}), or all but the harness thread that waits for the
 * end when the work runs on a contender's own threads ({@link #otherThreadsCpuNow()}), JIT and GC included either
 * way. Contenders run one after another, so each measurement sees only its own; the database server runs in other
 * processes and is not counted.
 *
 * @param nanos wall-clock nanoseconds
 * @param cpuNanos CPU nanoseconds of this JVM, or of its threads other than the harness thread
 */
record Timing(long nanos, long cpuNanos) {

	private static final OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private static final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	/** The CPU time this JVM has used so far. */
	static long cpuNow() {
		return os.getProcessCpuTime();
	}

	/**
	 * The CPU time this JVM has used so far, less the calling thread's: a drain takes both ends on the same harness
	 * thread, so the harness's polling for the end is left out of the contender's CPU.
	 */
	static long otherThreadsCpuNow() {
		return os.getProcessCpuTime() - threads.getCurrentThreadCpuTime();
	}

	/** From {@code startNanos} ({@link System#nanoTime()}) and {@code startCpuNanos} ({@link #cpuNow()}) until now. */
	static Timing since(long startNanos, long startCpuNanos) {
		return new Timing(System.nanoTime() - startNanos, cpuNow() - startCpuNanos);
	}

	/** As {@link #since}, with {@code startCpuNanos} from {@link #otherThreadsCpuNow()} on the same thread. */
	static Timing sinceOnOtherThreads(long startNanos, long startCpuNanos) {
		return new Timing(System.nanoTime() - startNanos, otherThreadsCpuNow() - startCpuNanos);
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
