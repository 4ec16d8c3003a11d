package dev.taskqueue.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * W1: enqueue N no-op tasks, then time one contender at a time until all are done: a worker instance in each mode,
 * the raw-SQL baselines they are compared with (one per transaction, batch of 50), db-scheduler, a sweep of raw
 * batch sizes and references without a ratio (the earlier claim-then-delete baseline, a one-statement delete),
 * interleaved so that a run's ratios share its conditions.
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
		this.bench.report().info("W1 warm-up: " + tasks + " tasks for each contender");
		attempt("W1 warm-up " + RawShape.onePerTransaction().name(),
				() -> raw(RawShape.onePerTransaction(), Mode.TRANSACTIONAL, tasks));
		attempt("W1 warm-up " + RawShape.batch(this.bench.options().batchSize()).name(),
				() -> raw(RawShape.batch(this.bench.options().batchSize()), Mode.BATCHED, tasks));
		if (this.bench.options().w1Other(DbSchedulerDrain.NAME)) {
			attempt("W1 warm-up " + DbSchedulerDrain.NAME, () -> dbScheduler(tasks));
		}
		this.bench.forEachMode("W1 warm-up", (mode) -> library(mode, tasks));
	}

	@Override
	public void run() {
		int tasks = this.bench.options().tasks();
		this.bench.report().info("W1 tasks are enqueued untimed (enqueueAll in batches of " + LibraryDrain.ENQUEUE_BATCH
				+ ", db-scheduler's scheduleBatch); each drain is timed from the start of its workers until the "
				+ "table is empty; jvm-cpu is this JVM's CPU per task meanwhile, the harness thread excluded");
		List<Mode> modes = this.bench.options().modes();
		RawShape onePerTx = RawShape.onePerTransaction();
		Timing raw = measureRaw(onePerTx, Mode.TRANSACTIONAL, tasks);
		Timing dbScheduler = null;
		if (this.bench.options().w1Other(DbSchedulerDrain.NAME)) {
			dbScheduler = measureDbScheduler(tasks, onePerTx, raw);
		}
		if (modes.contains(Mode.TRANSACTIONAL)) {
			measureLibrary(Mode.TRANSACTIONAL, tasks, onePerTx, raw, dbScheduler);
		}
		RawShape batch = RawShape.batch(this.bench.options().batchSize());
		Timing rawBatch = measureRaw(batch, Mode.BATCHED, tasks);
		for (Mode mode : modes) {
			if (mode != Mode.TRANSACTIONAL) {
				measureLibrary(mode, tasks, batch, rawBatch, null);
			}
		}
		measureBatchSizes(tasks, batch, rawBatch);
		for (RawShape reference : List.of(RawShape.claimThenDelete(), RawShape.deleteReturning())) {
			if (this.bench.options().w1Other(reference.name())) {
				measureRaw(reference, Mode.TRANSACTIONAL, tasks);
			}
		}
	}

	private Timing measureRaw(RawShape shape, Mode mode, int tasks) {
		Timing timing = attempt("W1 " + shape.name(), () -> raw(shape, mode, tasks));
		if (timing != null) {
			this.bench.report().add(Result.of("W1", "drain " + shape.label(this.bench.threads(mode)) + " tasks=" + tasks,
					timing.rate(tasks), timing.cpuPer(tasks)));
		}
		return timing;
	}

	private Timing measureDbScheduler(int tasks, RawShape baseline, Timing raw) {
		Timing timing = attempt("W1 " + DbSchedulerDrain.NAME, () -> dbScheduler(tasks));
		if (timing != null) {
			Result result = Result.of("W1", "drain " + DbSchedulerDrain.describe(this.bench.threads(Mode.TRANSACTIONAL),
					this.bench.library().poolSize(Mode.TRANSACTIONAL), this.bench.options().dbSchedulerUpperLimit())
					+ " tasks=" + tasks, timing.rate(tasks),
					timing.cpuPer(tasks));
			this.bench.report().add((raw != null) ? result.comparedWith(baseline.name(), raw.rate(tasks)) : result);
		}
		return timing;
	}

	/**
	 * Measures {@code mode} and reports it against {@code baseline}: its rate (the ratio), and its CPU per task as
	 * a ratio too; transactional also against db-scheduler's rate.
	 */
	private void measureLibrary(Mode mode, int tasks, RawShape baseline, Timing raw, Timing dbScheduler) {
		Timing timing = attempt("W1 mode=" + mode.label(), () -> library(mode, tasks));
		if (timing == null) {
			return;
		}
		Result result = Result.of("W1", "drain " + this.bench.libraryLabel(mode) + " tasks=" + tasks,
				timing.rate(tasks), timing.cpuPer(tasks));
		if (raw != null) {
			result = result.and(Metric.ratio("cpu-ratio", (double) timing.cpuNanos() / raw.cpuNanos()));
		}
		if (dbScheduler != null) {
			result = result.and(Metric.ratio("vs-" + DbSchedulerDrain.NAME,
					timing.rate(tasks).value() / dbScheduler.rate(tasks).value()));
		}
		this.bench.report().add((raw != null) ? result.comparedWith(baseline.name(), raw.rate(tasks)) : result);
	}

	/** The raw batch at each of {@code --raw-batch-sizes}, and the best of them and the baseline's. */
	private void measureBatchSizes(int tasks, RawShape baseline, Timing baselineTiming) {
		List<Integer> sizes = new ArrayList<>();
		int best = baseline.batch();
		double bestRate = (baselineTiming != null) ? baselineTiming.rate(tasks).value() : 0;
		for (int size : this.bench.options().rawBatchSizes()) {
			if (size == baseline.batch() || sizes.contains(size)) {
				continue;
			}
			sizes.add(size);
			Timing timing = measureRaw(RawShape.batch(size), Mode.BATCHED, tasks);
			if (timing != null && timing.rate(tasks).value() > bestRate) {
				best = size;
				bestRate = timing.rate(tasks).value();
			}
		}
		if (!sizes.isEmpty() && bestRate > 0) {
			sizes.add(baseline.batch());
			sizes.sort(null);
			String list = sizes.stream().map(String::valueOf).collect(Collectors.joining(","));
			this.bench.report().add(Result.of("W1", "drain raw-batch best of sizes=" + list + " threads="
					+ this.bench.threads(Mode.BATCHED) + " tasks=" + tasks, new Metric("rate", bestRate, "/s"),
					Metric.count("batch", best)));
		}
	}

	/** Runs {@code measure}; when it fails, reports it and returns {@code null} so that the others still run. */
	private Timing attempt(String what, Supplier<Timing> measure) {
		try {
			return measure.get();
		}
		catch (RuntimeException ex) {
			this.bench.report().failed(what, ex);
			return null;
		}
	}

	/**
	 * Collects the garbage of enqueueing (and of the contender before) so that the collector's CPU in a drain is
	 * the drain's own.
	 */
	private static void collectSetUpGarbage() {
		System.gc();
	}

	private Timing library(Mode mode, int tasks) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			LibraryDrain.enqueue(database, this.bench.library(), mode, tasks);
			collectSetUpGarbage();
			return LibraryDrain.drain(database, this.bench.library(), mode, tasks);
		}
	}

	private Timing raw(RawShape shape, Mode mode, int tasks) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			LibraryDrain.enqueue(database, this.bench.library(), mode, tasks);
			collectSetUpGarbage();
			return this.bench.rawDrain(database, shape, mode, tasks);
		}
	}

	private Timing dbScheduler(int tasks) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			DbSchedulerDrain.schedule(database, tasks);
			collectSetUpGarbage();
			return DbSchedulerDrain.drain(database, tasks, this.bench.threads(Mode.TRANSACTIONAL),
					this.bench.library().poolSize(Mode.TRANSACTIONAL), this.bench.options().dbSchedulerUpperLimit());
		}
	}

}
