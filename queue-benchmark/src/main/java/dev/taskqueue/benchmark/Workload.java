package dev.taskqueue.benchmark;

/**
 * One workload of the benchmark, warmed up once and then run once per {@code --runs}.
 */
interface Workload {

	/** {@code W1} to {@code W5}. */
	String id();

	/** Runs the workload's code paths once with small numbers and reports nothing. */
	default void warmUp() {
	}

	/** Measures and adds the results to the report. */
	void run();

}
