package dev.taskqueue.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;

/**
 * W4: how fast a producer instance enqueues, one task per transaction and with {@code enqueueAll} in batches,
 * against plain JDBC inserts of the same rows in the same batches (multi-row {@code VALUES}, and {@code unnest});
 * and the same enqueues with a distinct unique key per task, against those without.
 */
final class EnqueueWorkload implements Workload {

	private static final List<Integer> BATCH_SIZES = List.of(1, 100, 1_000);

	private static final String QUEUE = Mode.TRANSACTIONAL.queue();

	private final Bench bench;

	EnqueueWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W4";
	}

	@Override
	public void warmUp() {
		this.bench.report().info("W4 warm-up: " + this.bench.options().warmupTasks() + " tasks per batch size");
		measure(this.bench.options().warmupTasks(), false);
	}

	@Override
	public void run() {
		measure(this.bench.options().tasks(), true);
	}

	private void measure(int tasks, boolean report) {
		try (ScratchDatabase database = this.bench.database().createScratch();
				LibraryInstance producer = LibraryInstance.producer(database.url(), this.bench.library());
				QueueTable table = new QueueTable(database, this.bench.library().taskTable())) {
			Baseline baseline = new Baseline(database.url(), this.bench.library().taskTable());
			for (int batchSize : BATCH_SIZES) {
				int count = (batchSize == 1) ? Math.min(tasks, this.bench.options().w4SingleTasks()) : tasks;
				String size = " batch=" + batchSize + " tasks=" + count;
				// enqueue sends a NOTIFY with every insert unless notify is off: its baseline sends the same.
				boolean notifying = batchSize == 1 && notifies();
				String rawName = (batchSize > 1) ? "raw-multi-row" : notifying ? "raw-1-per-tx+notify" : "raw-1-per-tx";
				List<Result> results = new ArrayList<>();
				if (notifying) {
					Timing plain = onEmptyTable(table, () -> baseline.insert(QUEUE, 1, count));
					results.add(Result.of("W4", "insert raw-1-per-tx (no NOTIFY, for reference)" + size,
							plain.rate(count), plain.cpuPer(count)));
				}
				Timing raw = onEmptyTable(table, () -> notifying ? baseline.insertNotifying(QUEUE, count)
						: baseline.insert(QUEUE, batchSize, count));
				results.add(Result.of("W4", "insert baseline=" + rawName + size, raw.rate(count), raw.cpuPer(count)));
				if (batchSize > 1) {
					Timing unnest = onEmptyTable(table, () -> baseline.insertUnnest(QUEUE, batchSize, count));
					results.add(Result.of("W4", "insert baseline=raw-unnest" + size, unnest.rate(count),
							unnest.cpuPer(count)));
				}
				Timing library = onEmptyTable(table, () -> enqueue(producer.taskQueue(), batchSize, count));
				results.add(Result.of("W4", ((batchSize == 1) ? "enqueue" : "enqueueAll") + size + " config="
						+ this.bench.options().describeLibraryProperties(), library.rate(count), library.cpuPer(count))
					.comparedWith(rawName, raw.rate(count)));
				String libraryName = (batchSize == 1) ? "enqueue" : "enqueueAll";
				Timing keyed = onEmptyTable(table, () -> enqueueKeyed(producer.taskQueue(), batchSize, count));
				results.add(Result.of("W4", libraryName + " unique-keys" + size, keyed.rate(count), keyed.cpuPer(count))
					.comparedWith(libraryName + " without keys", library.rate(count)));
				if (report) {
					results.forEach(this.bench.report()::add);
				}
			}
		}
	}

	private boolean notifies() {
		return !"false".equals(this.bench.library().asMap().get("taskqueue.notify.enabled"));
	}

	private static Timing onEmptyTable(QueueTable table, Supplier<Timing> measurement) {
		table.truncate();
		return measurement.get();
	}

	/** {@link #enqueue} with a unique key per task, all distinct: what a key costs when it is never a duplicate. */
	private static Timing enqueueKeyed(TaskQueue taskQueue, int batchSize, int count) {
		long start = System.nanoTime();
		long startCpu = Timing.cpuNow();
		for (int seq = 0; seq < count; seq += batchSize) {
			int size = Math.min(batchSize, count - seq);
			List<TaskRequest> requests = new ArrayList<>(size);
			for (int i = 0; i < size; i++) {
				requests.add(TaskRequest.of(QUEUE, new BenchTask(seq + i)).withUniqueKey("key-" + (seq + i)));
			}
			if (batchSize == 1) {
				taskQueue.enqueue(requests.get(0));
			}
			else {
				taskQueue.enqueueAll(requests);
			}
		}
		return Timing.since(start, startCpu);
	}

	/** Enqueues {@code count} tasks, one per transaction or with one {@code enqueueAll} per batch, and times it. */
	private static Timing enqueue(TaskQueue taskQueue, int batchSize, int count) {
		long start = System.nanoTime();
		long startCpu = Timing.cpuNow();
		if (batchSize == 1) {
			for (int seq = 0; seq < count; seq++) {
				taskQueue.enqueue(QUEUE, new BenchTask(seq));
			}
		}
		else {
			LibraryDrain.enqueueInBatches(taskQueue, QUEUE, 0, count, batchSize);
		}
		return Timing.since(start, startCpu);
	}

}
