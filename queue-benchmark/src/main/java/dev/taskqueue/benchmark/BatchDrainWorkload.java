package dev.taskqueue.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.taskqueue.TaskRequest;

/**
 * W7: the cost of a task batch to its workers. For each mode, the same N no-op tasks are drained twice, one after
 * the other in the same run: once enqueued as plain tasks (one {@code enqueueAll} of all N, the baseline), once as
 * one batch ({@code enqueueBatch} of all N with a {@code then} task on a queue nobody handles). Enqueueing is not
 * timed; each drain is timed like W1's, from the start of its worker until none of the N tasks is left. The
 * batch side also reports how long after that its {@code then} task was there (the sweep's delay).
 */
final class BatchDrainWorkload implements Workload {

	static final String THEN_QUEUE = "w7-then";

	private final Bench bench;

	BatchDrainWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W7";
	}

	@Override
	public void warmUp() {
		int tasks = this.bench.options().warmupTasks();
		this.bench.report().info("W7 warm-up: " + tasks + " tasks, plain and as a batch, for each mode");
		this.bench.forEachMode("W7 warm-up", (mode) -> {
			plain(mode, tasks);
			batch(mode, tasks);
		});
	}

	@Override
	public void run() {
		int tasks = this.bench.options().tasks();
		this.bench.report().info("W7: " + tasks + " no-op tasks per drain, enqueued untimed as plain tasks (one "
				+ "enqueueAll) or as one enqueueBatch; each drain timed from the start of its worker until none of "
				+ "them is left");
		this.bench.forEachMode("W7", (mode) -> {
			Timing plain = plain(mode, tasks);
			this.bench.report().add(Result.of("W7", "drain plain " + this.bench.libraryLabel(mode) + " tasks=" + tasks,
					plain.rate(tasks), plain.cpuPer(tasks)));
			BatchTiming batch = batch(mode, tasks);
			this.bench.report().add(Result.of("W7", "drain batch " + this.bench.libraryLabel(mode) + " tasks=" + tasks,
					batch.drain().rate(tasks), batch.drain().cpuPer(tasks),
					new Metric("then-after", batch.thenAfterNanos() / 1e6, "ms"))
				.comparedWith("plain", plain.rate(tasks)));
		});
	}

	private Timing plain(Mode mode, int tasks) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			// One enqueueAll of all of them, as the batch is one statement: the two tables then look alike.
			try (LibraryInstance producer = LibraryInstance.producer(database.url(), this.bench.library())) {
				LibraryDrain.enqueueInBatches(producer.taskQueue(), mode.queue(), 0, tasks, tasks);
			}
			System.gc();
			return LibraryDrain.drain(database, this.bench.library(), mode, tasks);
		}
	}

	private BatchTiming batch(Mode mode, int tasks) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			try (LibraryInstance producer = LibraryInstance.producer(database.url(), this.bench.library())) {
				List<TaskRequest> requests = new ArrayList<>(tasks);
				for (int i = 0; i < tasks; i++) {
					requests.add(TaskRequest.of(mode.queue(), new BenchTask(i)));
				}
				producer.taskQueue().enqueueBatch(requests, TaskRequest.of(THEN_QUEUE, new BenchTask(-1)));
			}
			System.gc();
			Probe probe = new Probe();
			try (LibraryInstance worker = LibraryInstance.worker(database.url(), this.bench.library(), mode, probe);
					QueueTable table = new QueueTable(database, this.bench.library().taskTable())) {
				probe.awaitHandled(tasks);
				long emptyAt = table.awaitEmpty(mode.queue());
				Timing drain = probe.sinceWorkerStart(emptyAt);
				long deadline = System.nanoTime() + Probe.STALL_TIMEOUT.toNanos();
				while (table.count(THEN_QUEUE) == 0) {
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException("The then task of the W7 batch did not come within "
								+ Probe.STALL_TIMEOUT);
					}
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
				}
				return new BatchTiming(drain, System.nanoTime() - emptyAt);
			}
		}
	}

	private record BatchTiming(Timing drain, long thenAfterNanos) {
	}

}
