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

	/** Threads of the raw baselines and of db-scheduler: as many as the worker runs handlers of {@code mode}'s queue. */
	int threads(Mode mode) {
		return this.library.concurrency(mode);
	}

	/**
	 * The raw baseline {@code mode} is compared with: one task per transaction for transactional, the raw batch of
	 * {@code --batch-size} (50) for grouped and batched, whatever their own group or claim sizes.
	 */
	RawShape rawShape(Mode mode) {
		return (mode == Mode.TRANSACTIONAL) ? RawShape.onePerTransaction()
				: RawShape.batch(this.options.batchSize());
	}

	/** Drains {@code tasks} tasks of {@code mode}'s queue, waiting in {@code database}, in {@code shape}. */
	Timing rawDrain(ScratchDatabase database, RawShape shape, Mode mode, int tasks) {
		return new RawDrain(database.url(), this.library.taskTable()).drain(shape, mode.queue(), threads(mode), tasks);
	}

	/** The library's label for {@code mode}, e.g. {@code mode=transactional threads=8 config=default}. */
	String libraryLabel(Mode mode) {
		return "mode=" + mode.label() + " threads=" + threads(mode)
				+ ((mode == Mode.GROUPED) ? " group=" + this.library.groupSize(mode) : "") + " config="
				+ this.options.describeLibraryProperties();
	}

}
