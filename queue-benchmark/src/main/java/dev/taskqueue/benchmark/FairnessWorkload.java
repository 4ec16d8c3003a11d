package dev.taskqueue.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;

/**
 * W11: fairness keys (docs/fairness.md). (a) Ten small tenants enqueue a trickle (--w11-rate tasks a second in all,
 * for --w11-seconds, one task per transaction) into one queue, its worker started first: their pickup latency, from
 * the enqueue's commit to the handler's start, p50/p95/p99/max, once with the queue otherwise empty (the baseline),
 * once with a big tenant's --w11-big tasks (100,000) enqueued before, all with fairness keys, and once the same without
 * any key (what the keys prevent: the trickle waits behind the backlog). (b) The drain of --tasks no-op tasks with
 * fairness keys (nine in ten the big tenant's, the rest spread over ten small ones), enqueued untimed with
 * {@code enqueueAll} and timed like W1, against the same tasks without keys in the same run. Transactional mode.
 */
final class FairnessWorkload implements Workload {

	static final int SMALL_TENANTS = 10;

	private static final String QUEUE = Mode.TRANSACTIONAL.queue();

	private final Bench bench;

	FairnessWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W11";
	}

	@Override
	public void warmUp() {
		int tasks = this.bench.options().warmupTasks();
		this.bench.report().info("W11 warm-up: drains of " + tasks + " tasks with and without fairness keys");
		drain(tasks, false);
		drain(tasks, true);
	}

	@Override
	public void run() {
		BenchmarkOptions options = this.bench.options();
		int big = options.w11Big();
		this.bench.report().info("W11 latency: " + SMALL_TENANTS + " small tenants enqueue " + options.w11Rate()
				+ " tasks/s in all for " + options.w11Seconds() + " s into a running worker; pickup latency from "
				+ "the enqueue's commit to the handler's start");
		Result absent = attempt("W11 big-absent", () -> latency("small-tenants big=absent", 0, true));
		Result present = attempt("W11 big-present", () -> latency("small-tenants big=" + big + " keys", big, true));
		Result noKeys = attempt("W11 big-present-no-keys",
				() -> latency("small-tenants big=" + big + " no-keys", big, false));
		if (absent != null) {
			this.bench.report().add(absent);
			if (present != null) {
				this.bench.report().add(present.comparedWith("big-absent", absent.headline()));
			}
			if (noKeys != null) {
				this.bench.report().add(noKeys.comparedWith("big-absent", absent.headline()));
			}
		}
		int tasks = options.tasks();
		this.bench.report().info("W11 drain: " + tasks + " tasks enqueued untimed (enqueueAll in batches of "
				+ LibraryDrain.ENQUEUE_BATCH + "); keyed: 9 in 10 of key big, the rest over " + SMALL_TENANTS
				+ " small keys; timed from the start of the worker until the table is empty");
		Timing plain = attemptTiming("W11 drain without keys", () -> drain(tasks, false));
		Timing keyed = attemptTiming("W11 drain with keys", () -> drain(tasks, true));
		if (plain != null && keyed != null) {
			String label = "drain " + this.bench.libraryLabel(Mode.TRANSACTIONAL) + " tasks=" + tasks;
			this.bench.report().add(Result.of("W11", label + " no-keys", plain.rate(tasks), plain.cpuPer(tasks)));
			this.bench.report()
				.add(Result.of("W11", label + " fairness-keys=" + (SMALL_TENANTS + 1), keyed.rate(tasks),
						keyed.cpuPer(tasks))
					.comparedWith("no-keys", plain.rate(tasks)));
		}
	}

	/** The small tenants' trickle into a running worker, with {@code big} tasks of one tenant enqueued before. */
	private Result latency(String label, int big, boolean keyed) {
		BenchmarkOptions options = this.bench.options();
		int small = options.w11Rate() * options.w11Seconds();
		long[] committed = new long[small];
		Probe probe = new Probe(small + big);
		int bigLeft;
		try (ScratchDatabase database = this.bench.database().createScratch();
				LibraryInstance producer = LibraryInstance.producer(database.url(), this.bench.library())) {
			TaskQueue taskQueue = producer.taskQueue();
			enqueueBig(taskQueue, small, big, keyed);
			try (LibraryInstance worker = LibraryInstance.worker(database.url(), this.bench.library(),
					Mode.TRANSACTIONAL, probe)) {
				Pacer pacer = new Pacer(options.w11Rate());
				for (int seq = 0; seq < small; seq++) {
					pacer.awaitTurn(seq);
					TaskRequest request = TaskRequest.of(QUEUE, new BenchTask(seq));
					taskQueue.enqueue(keyed ? request.withFairnessKey("small-" + (seq % SMALL_TENANTS)) : request);
					committed[seq] = System.nanoTime();
				}
				bigLeft = 0;
				for (int seq = small; seq < small + big; seq++) {
					bigLeft += (probe.startNanos(seq) == 0) ? 1 : 0;
				}
				probe.awaitHandled(small + big);
			}
		}
		double[] millis = new double[small];
		for (int seq = 0; seq < small; seq++) {
			millis[seq] = Math.max(0, probe.startNanos(seq) - committed[seq]) / 1e6;
		}
		Arrays.sort(millis);
		// p99 first: the headline the other runs are compared with.
		return Result.of("W11", "latency " + label + " rate=" + options.w11Rate() + "/s",
				Metric.millis("p99", percentile(millis, 99)), Metric.millis("p50", percentile(millis, 50)),
				Metric.millis("p95", percentile(millis, 95)), Metric.millis("max", millis[small - 1]),
				Metric.count("samples", small), Metric.count("big-left-at-end", bigLeft));
	}

	private static void enqueueBig(TaskQueue taskQueue, int first, int big, boolean keyed) {
		for (int from = 0; from < big; from += LibraryDrain.ENQUEUE_BATCH) {
			int size = Math.min(LibraryDrain.ENQUEUE_BATCH, big - from);
			List<TaskRequest> requests = new ArrayList<>(size);
			for (int i = from; i < from + size; i++) {
				TaskRequest request = TaskRequest.of(QUEUE, new BenchTask(first + i));
				requests.add(keyed ? request.withFairnessKey("big") : request);
			}
			taskQueue.enqueueAll(requests);
		}
	}

	private Timing drain(int tasks, boolean keyed) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			try (LibraryInstance producer = LibraryInstance.producer(database.url(), this.bench.library())) {
				for (int first = 0; first < tasks; first += LibraryDrain.ENQUEUE_BATCH) {
					int size = Math.min(LibraryDrain.ENQUEUE_BATCH, tasks - first);
					List<TaskRequest> requests = new ArrayList<>(size);
					for (int i = first; i < first + size; i++) {
						TaskRequest request = TaskRequest.of(QUEUE, new BenchTask(i));
						String key = (i % 10 == 0) ? "small-" + ((i / 10) % SMALL_TENANTS) : "big";
						requests.add(keyed ? request.withFairnessKey(key) : request);
					}
					producer.taskQueue().enqueueAll(requests);
				}
			}
			System.gc();
			return LibraryDrain.drain(database, this.bench.library(), Mode.TRANSACTIONAL, tasks);
		}
	}

	/** The nearest-rank percentile of sorted {@code values}. */
	private static double percentile(double[] values, int percent) {
		int rank = (int) Math.ceil(percent / 100.0 * values.length);
		return values[Math.max(0, rank - 1)];
	}

	private Result attempt(String what, Supplier<Result> measure) {
		try {
			return measure.get();
		}
		catch (RuntimeException ex) {
			this.bench.report().failed(what, ex);
			return null;
		}
	}

	private Timing attemptTiming(String what, Supplier<Timing> measure) {
		try {
			return measure.get();
		}
		catch (RuntimeException ex) {
			this.bench.report().failed(what, ex);
			return null;
		}
	}

}
