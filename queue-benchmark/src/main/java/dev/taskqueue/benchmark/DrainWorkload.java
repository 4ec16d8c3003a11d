package dev.taskqueue.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * W1: enqueue N no-op tasks, then time one contender at a time until all are done: a worker instance in each mode,
 * the raw-SQL baselines they are compared with (the one-statement exactly-once loop for transactional, the batch
 * loop of 50 for the batch modes), the peers (db-scheduler tuned and as it comes, JobRunr), a sweep of raw batch
 * sizes and a weaker reference without a ratio, interleaved so that a run's ratios share its conditions. The
 * one-per-transaction contenders drain {@code --tasks} (50,000), the batch ones {@code --batch-tasks} (300,000), so
 * that a batch drain lasts long enough for its rate to be more than the JIT's warm-up.
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
		int batchTasks = this.bench.options().batchWarmupTasks();
		this.bench.report().info("W1 warm-up: " + tasks + " tasks for each one-per-transaction contender, " + batchTasks
				+ " for each batch contender");
		RawShape batch = RawShape.batch(this.bench.options().batchSize());
		attempt("W1 warm-up " + RawShape.onePerTransaction().name(),
				() -> raw(RawShape.onePerTransaction(), Mode.TRANSACTIONAL, tasks));
		attempt("W1 warm-up " + batch.name(), () -> raw(batch, Mode.BATCHED, batchTasks));
		for (Peer peer : Peer.values()) {
			if (this.bench.options().w1Other(peer.contender)) {
				attempt("W1 warm-up " + peer.contender, () -> peer(peer, tasks));
			}
		}
		this.bench.forEachMode("W1 warm-up", (mode) -> library(mode, (mode == Mode.TRANSACTIONAL) ? tasks : batchTasks));
	}

	@Override
	public void run() {
		int tasks = this.bench.options().tasks();
		int batchTasks = this.bench.options().batchTasks();
		this.bench.report().info("W1 tasks are enqueued untimed (enqueueAll in batches of " + LibraryDrain.ENQUEUE_BATCH
				+ ", db-scheduler's scheduleBatch, JobRunr's enqueue of a stream); each drain is timed from the start "
				+ "of its workers until the table is empty (JobRunr: until every job is SUCCEEDED); jvm-cpu is this "
				+ "JVM's CPU per task meanwhile, the harness thread excluded");
		List<Mode> modes = this.bench.options().modes();
		RawShape onePerTx = RawShape.onePerTransaction();
		Timing raw = measureRaw(onePerTx, Mode.TRANSACTIONAL, tasks);
		Map<String, Timing> peers = new LinkedHashMap<>();
		for (Peer peer : Peer.values()) {
			if (this.bench.options().w1Other(peer.contender)) {
				Timing timing = measurePeer(peer, tasks, onePerTx, raw);
				if (timing != null) {
					peers.put(peer.contender, timing);
				}
			}
		}
		if (modes.contains(Mode.TRANSACTIONAL)) {
			measureLibrary(Mode.TRANSACTIONAL, tasks, onePerTx, raw, peers);
		}
		RawShape batch = RawShape.batch(this.bench.options().batchSize());
		Timing rawBatch = measureRaw(batch, Mode.BATCHED, batchTasks);
		for (Mode mode : modes) {
			if (mode != Mode.TRANSACTIONAL) {
				measureLibrary(mode, batchTasks, batch, rawBatch, Map.of());
			}
		}
		measureBatchSizes(batchTasks, batch, rawBatch);
		RawShape reference = RawShape.claimThenDelete();
		if (this.bench.options().w1Other(reference.name())) {
			measureRaw(reference, Mode.TRANSACTIONAL, tasks);
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

	/** Measures {@code peer} and reports it, with its rate and CPU per task as ratios to {@code raw}'s. */
	private Timing measurePeer(Peer peer, int tasks, RawShape baseline, Timing raw) {
		Timing timing = attempt("W1 " + peer.contender, () -> peer(peer, tasks));
		if (timing != null) {
			int threads = this.bench.threads(Mode.TRANSACTIONAL);
			int poolSize = this.bench.library().poolSize(Mode.TRANSACTIONAL);
			String label = switch (peer) {
				case DB_SCHEDULER -> DbSchedulerDrain.describe(threads, poolSize,
						this.bench.options().dbSchedulerUpperLimit());
				case DB_SCHEDULER_DEFAULTS -> DbSchedulerDrain.describe(threads, poolSize, 0);
				case JOBRUNR -> JobRunrDrain.describe(threads, poolSize);
			};
			Result result = Result.of("W1", "drain " + label + " tasks=" + tasks, timing.rate(tasks),
					timing.cpuPer(tasks));
			if (raw != null) {
				result = result.and(Metric.ratio("cpu-ratio", (double) timing.cpuNanos() / raw.cpuNanos()))
					.comparedWith(baseline.name(), raw.rate(tasks));
			}
			this.bench.report().add(result);
		}
		return timing;
	}

	/**
	 * Measures {@code mode} and reports it against {@code baseline}: its rate (the ratio), and its CPU per task as
	 * a ratio too; and its rate against each of {@code peers}' in the same run.
	 */
	private void measureLibrary(Mode mode, int tasks, RawShape baseline, Timing raw, Map<String, Timing> peers) {
		Timing timing = attempt("W1 mode=" + mode.label(), () -> library(mode, tasks));
		if (timing == null) {
			return;
		}
		Result result = Result.of("W1", "drain " + this.bench.libraryLabel(mode) + " tasks=" + tasks,
				timing.rate(tasks), timing.cpuPer(tasks));
		if (raw != null) {
			result = result.and(Metric.ratio("cpu-ratio", (double) timing.cpuNanos() / raw.cpuNanos()));
		}
		for (Map.Entry<String, Timing> peer : peers.entrySet()) {
			result = result.and(Metric.ratio("vs-" + peer.getKey(),
					timing.rate(tasks).value() / peer.getValue().rate(tasks).value()));
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

	private Timing peer(Peer peer, int tasks) {
		int threads = this.bench.threads(Mode.TRANSACTIONAL);
		int poolSize = this.bench.library().poolSize(Mode.TRANSACTIONAL);
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			if (peer == Peer.JOBRUNR) {
				JobRunrDrain.enqueue(database, tasks);
				collectSetUpGarbage();
				return JobRunrDrain.drain(database, tasks, threads, poolSize);
			}
			DbSchedulerDrain.schedule(database, tasks);
			collectSetUpGarbage();
			double upperLimit = (peer == Peer.DB_SCHEDULER) ? this.bench.options().dbSchedulerUpperLimit() : 0;
			return DbSchedulerDrain.drain(database, tasks, threads, poolSize, upperLimit);
		}
	}

	/** The other libraries TRANSACTIONAL is compared with, each with as many threads and connections. */
	enum Peer {

		DB_SCHEDULER(DbSchedulerDrain.NAME), DB_SCHEDULER_DEFAULTS(DbSchedulerDrain.DEFAULTS_NAME),
		JOBRUNR(JobRunrDrain.NAME);

		final String contender;

		Peer(String contender) {
			this.contender = contender;
		}

	}

}
