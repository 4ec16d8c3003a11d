package dev.taskqueue.benchmark;

/**
 * The payload of every benchmark task: its number within one measurement, counted from 0.
 *
 * @param seq the task's number
 */
record BenchTask(long seq) {

	/** The JSON that TaskQueue writes for this payload, for the raw baselines to write the same. */
	static String json(long seq) {
		return "{\"seq\":" + seq + "}";
	}

}
