package dev.taskqueue.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;

/**
 * W6: ordered keys. In each mode, N no-op tasks (--tasks, 50,000) drained once without ordering keys and once with
 * 1,000 ordering keys (task i has key i mod 1,000, so each key holds N / 1,000 tasks that must run one after the
 * other), one after the other in every run, so that the ratio (with keys / without) shares the run's conditions.
 * Both sides enqueue untimed with {@code enqueueAll} in batches of 1,000 and are timed from the start of the worker
 * until the table is empty, like W1.
 */
final class OrderedDrainWorkload implements Workload {

	static final int KEYS = 1_000;

	private final Bench bench;

	OrderedDrainWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W6";
	}

	@Override
	public void warmUp() {
		int tasks = this.bench.options().warmupTasks();
		this.bench.report().info("W6 warm-up: " + tasks + " tasks for each mode, with and without keys");
		this.bench.forEachMode("W6 warm-up", (mode) -> {
			drain(mode, tasks, false);
			drain(mode, tasks, true);
		});
	}

	@Override
	public void run() {
		int tasks = this.bench.options().tasks();
		this.bench.report().info("W6 tasks are enqueued untimed (enqueueAll in batches of " + LibraryDrain.ENQUEUE_BATCH
				+ "); keyed: task i has ordering key i mod " + KEYS + "; each drain is timed from the start of its "
				+ "worker until the table is empty");
		for (Mode mode : this.bench.options().modes()) {
			Timing plain = attempt("W6 mode=" + mode.label() + " without keys", () -> drain(mode, tasks, false));
			Timing keyed = attempt("W6 mode=" + mode.label() + " keys=" + KEYS, () -> drain(mode, tasks, true));
			if (plain == null || keyed == null) {
				continue;
			}
			String label = "drain " + this.bench.libraryLabel(mode) + " tasks=" + tasks;
			this.bench.report().add(Result.of("W6", label + " no-keys", plain.rate(tasks), plain.cpuPer(tasks)));
			this.bench.report()
				.add(Result.of("W6", label + " keys=" + KEYS, keyed.rate(tasks), keyed.cpuPer(tasks))
					.comparedWith("no-keys", plain.rate(tasks)));
		}
	}

	private Timing drain(Mode mode, int tasks, boolean keyed) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			try (LibraryInstance producer = LibraryInstance.producer(database.url(), this.bench.library())) {
				enqueue(producer.taskQueue(), mode.queue(), tasks, keyed);
			}
			System.gc();
			return LibraryDrain.drain(database, this.bench.library(), mode, tasks);
		}
	}

	private static void enqueue(TaskQueue taskQueue, String queue, int count, boolean keyed) {
		for (int first = 0; first < count; first += LibraryDrain.ENQUEUE_BATCH) {
			int size = Math.min(LibraryDrain.ENQUEUE_BATCH, count - first);
			List<TaskRequest> requests = new ArrayList<>(size);
			for (int i = first; i < first + size; i++) {
				TaskRequest request = TaskRequest.of(queue, new BenchTask(i));
				requests.add(keyed ? request.withOrderingKey("key-" + (i % KEYS)) : request);
			}
			taskQueue.enqueueAll(requests);
		}
	}

	private Timing attempt(String what, Supplier<Timing> measure) {
		try {
			return measure.get();
		}
		catch (RuntimeException ex) {
			this.bench.report().failed(what, ex);
			return null;
		}
	}

}
