package dev.taskqueue.benchmark;

import java.util.function.Consumer;

/**
 * What every workload works with: the options, the server, the report, and the properties for TaskQueue instances.
 *
 * @param options the command line
 * @param database the server that hands out scratch databases
 * @param report where results go
 * @param library the properties of every TaskQueue instance
 */
record Bench(BenchmarkOptions options, BenchmarkDatabase database, Report report, LibraryProperties library) {

	/** Runs {@code measure} for each of {@code --modes}; a mode that fails is reported and the others still run. */
	void forEachMode(String workload, Consumer<Mode> measure) {
		for (Mode mode : this.options.modes()) {
			try {
				measure.accept(mode);
			}
			catch (RuntimeException ex) {
				this.report.failed(workload + " mode=" + mode.label(), ex);
			}
		}
	}

	/** Threads of the raw baseline matching {@code mode}: as many as the worker runs handlers of its queue. */
	int threads(Mode mode) {
		return this.library.concurrency(mode);
	}

	/** Tasks claimed and deleted per statement by the raw baseline matching {@code mode}. */
	int batchSize(Mode mode) {
		if (mode == Mode.TRANSACTIONAL) {
			return 1;
		}
		if (this.options.batchSize() > 0) {
			return this.options.batchSize();
		}
		return (mode == Mode.GROUPED) ? this.library.groupSize(mode) : threads(mode);
	}

	/** The raw baseline's label for {@code mode}, e.g. {@code baseline=raw-batch threads=4 batch=4}. */
	String baselineLabel(Mode mode) {
		return "baseline=" + mode.baseline() + " threads=" + threads(mode)
				+ ((mode == Mode.TRANSACTIONAL) ? "" : " batch=" + batchSize(mode));
	}

	/** The library's label for {@code mode}, e.g. {@code mode=transactional threads=4 config=default}. */
	String libraryLabel(Mode mode) {
		return "mode=" + mode.label() + " threads=" + threads(mode)
				+ ((mode == Mode.GROUPED) ? " group=" + this.library.groupSize(mode) : "") + " config="
				+ this.options.describeLibraryProperties();
	}

}
