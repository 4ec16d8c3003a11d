package dev.taskqueue.benchmark;

import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.List;

/**
 * W3: the claim rate over the first completions with a small and a large backlog waiting, against the raw baseline
 * on the same backlog, and the heap of the worker instance facing the backlog.
 */
final class BacklogWorkload implements Workload {

	private final Bench bench;

	BacklogWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W3";
	}

	@Override
	public void warmUp() {
		int tasks = this.bench.options().warmupTasks();
		this.bench.forEachMode("W3 warm-up", (mode) -> {
			this.bench.report().info("W3 warm-up: " + tasks + " tasks, " + mode.label() + " and "
					+ this.bench.rawShape(mode).name());
			library(mode, tasks, tasks);
			baseline(mode, tasks, tasks);
		});
	}

	@Override
	public void run() {
		List<Integer> backlogs = this.bench.options().w3Backlogs();
		int completions = this.bench.options().w3Completions();
		if (Collections.min(backlogs) < completions) {
			throw new IllegalArgumentException("--w3-completions (" + completions + ") must not be more than the "
					+ "smallest of --w3-backlogs (" + Collections.min(backlogs) + ")");
		}
		this.bench.report().info("W3 backlogs are set up untimed with one INSERT ... SELECT generate_series and "
				+ "VACUUM ANALYZE; rates are over the first " + completions + " completions from the worker's start");
		this.bench.forEachMode("W3", (mode) -> {
			Rates first = measure(mode, backlogs.get(0), completions);
			for (int backlog : backlogs.subList(1, backlogs.size())) {
				Rates rates = measure(mode, backlog, completions);
				String scaling = " backlog=" + backlog + "/" + backlogs.get(0);
				this.bench.report().add(Result.of("W3", "scaling mode=" + mode.label() + scaling,
						Metric.ratio("rate-ratio", rates.library.value() / first.library.value())));
				String baseline = "scaling baseline=" + this.bench.rawShape(mode).name();
				this.bench.report().add(Result.of("W3", baseline + scaling,
						Metric.ratio("rate-ratio", rates.baseline.value() / first.baseline.value())));
			}
		});
	}

	/** Measures the baseline and the library on the same backlog, and the library instance's heap. */
	private Rates measure(Mode mode, int backlog, int completions) {
		String size = " backlog=" + backlog + " completions=" + completions;
		Timing raw = baseline(mode, backlog, completions);
		Metric baseline = raw.rate(completions);
		RawShape shape = this.bench.rawShape(mode);
		this.bench.report().add(Result.of("W3", "claim " + shape.label(this.bench.threads(mode)) + size, baseline,
				raw.cpuPer(completions)));
		LibraryRun library = library(mode, backlog, completions);
		Metric rate = library.timing.rate(completions);
		this.bench.report().add(Result.of("W3", "claim " + this.bench.libraryLabel(mode) + size, rate,
				library.timing.cpuPer(completions)).comparedWith(shape.name(), baseline));
		this.bench.report().add(Result.of("W3", "heap mode=" + mode.label() + size,
				Metric.megabytes("growth", library.heapAfter - library.heapBefore),
				Metric.megabytes("before", library.heapBefore), Metric.megabytes("after", library.heapAfter)));
		return new Rates(rate, baseline);
	}

	private LibraryRun library(Mode mode, int backlog, int completions) {
		try (ScratchDatabase database = fill(mode, backlog)) {
			Probe probe = new Probe();
			long heapBefore = heapUsedAfterGc();
			try (LibraryInstance worker = LibraryInstance.worker(database.url(), this.bench.library(), mode, probe)) {
				Timing timing = probe.sinceWorkerStart(probe.awaitHandled(completions));
				return new LibraryRun(timing, heapBefore, heapUsedAfterGc());
			}
		}
	}

	private Timing baseline(Mode mode, int backlog, int completions) {
		try (ScratchDatabase database = fill(mode, backlog)) {
			return this.bench.rawDrain(database, this.bench.rawShape(mode), mode, completions);
		}
	}

	/** A scratch database with TaskQueue's tables and {@code backlog} ready tasks, set up with plain SQL. */
	private ScratchDatabase fill(Mode mode, int backlog) {
		ScratchDatabase database = this.bench.database().createScratch();
		try {
			LibraryDrain.migrate(database, this.bench.library());
			try (QueueTable table = new QueueTable(database, this.bench.library().taskTable())) {
				table.fill(mode.queue(), backlog);
			}
			return database;
		}
		catch (RuntimeException ex) {
			database.close();
			throw ex;
		}
	}

	private static long heapUsedAfterGc() {
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	private record LibraryRun(Timing timing, long heapBefore, long heapAfter) {
	}

	private record Rates(Metric library, Metric baseline) {
	}

}
