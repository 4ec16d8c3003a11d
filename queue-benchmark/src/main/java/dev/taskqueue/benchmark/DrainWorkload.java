package dev.taskqueue.benchmark;

/**
 * W1: enqueue N no-op tasks with {@code enqueueAll}, then time a worker instance until all are done, in each mode,
 * and the matching raw-SQL drain of the same tasks with as many threads.
 */
final class DrainWorkload implements Workload {

	private final Bench bench;

	DrainWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W1";
	}

	@Override
	public void warmUp() {
		int tasks = this.bench.options().warmupTasks();
		this.bench.forEachMode("W1 warm-up", (mode) -> {
			this.bench.report().info("W1 warm-up: " + tasks + " tasks, " + mode.label() + " and " + mode.baseline());
			library(mode, tasks);
			baseline(mode, tasks);
		});
	}

	@Override
	public void run() {
		int tasks = this.bench.options().tasks();
		this.bench.report().info("W1 tasks are enqueued untimed with enqueueAll in batches of "
				+ LibraryDrain.ENQUEUE_BATCH + "; each drain is timed from the worker's start until the queue is empty");
		this.bench.forEachMode("W1", (mode) -> {
			Timing baseline = baseline(mode, tasks);
			this.bench.report().add(Result.of("W1", "drain " + this.bench.baselineLabel(mode) + " tasks=" + tasks,
					baseline.rate(tasks), baseline.cpuPer(tasks)));
			Timing library = library(mode, tasks);
			this.bench.report().add(Result.of("W1", "drain " + this.bench.libraryLabel(mode) + " tasks=" + tasks,
					library.rate(tasks), library.cpuPer(tasks)).comparedWith(mode.baseline(), baseline.rate(tasks)));
		});
	}

	private Timing library(Mode mode, int tasks) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			LibraryDrain.enqueue(database, this.bench.library(), mode, tasks);
			return LibraryDrain.drain(database, this.bench.library(), mode, tasks);
		}
	}

	private Timing baseline(Mode mode, int tasks) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			LibraryDrain.enqueue(database, this.bench.library(), mode, tasks);
			return new Baseline(database.url(), this.bench.library().taskTable()).drain(mode.queue(),
					this.bench.threads(mode), this.bench.batchSize(mode), tasks);
		}
	}

}
