package dev.taskqueue.benchmark;

import java.util.function.Supplier;

/**
 * W8: what a cluster-wide limit costs a queue that never reaches it. Drains N no-op tasks of the transactional
 * queue with one worker instance four ways, interleaved so that they share a run's conditions: without limits
 * (the baseline), with {@code global-concurrency} equal to the instance's concurrency (every freed slot waits for
 * a claim), with one far above what the instance claims (the cost of the locked claim alone), and with a rate limit
 * far above the drain's rate. The limited queue claims through a short transaction that locks the queue's row (see
 * {@code LimitedClaims}); the tasks it claims ahead of its threads count against its global concurrency.
 */
final class LimitsWorkload implements Workload {

	private final Bench bench;

	LimitsWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W8";
	}

	@Override
	public void warmUp() {
		int tasks = this.bench.options().warmupTasks();
		attempt("W8 warm-up global-concurrency", () -> drain(globalConcurrency(FAR_ABOVE), tasks));
		attempt("W8 warm-up rate-limit", () -> drain(rateLimit(), tasks));
	}

	@Override
	public void run() {
		int tasks = this.bench.options().tasks();
		Mode mode = Mode.TRANSACTIONAL;
		Timing unlimited = attempt("W8 unlimited", () -> drain(this.bench.library(), tasks));
		if (unlimited == null) {
			return;
		}
		String label = "drain " + this.bench.libraryLabel(mode) + " tasks=" + tasks;
		this.bench.report()
			.add(Result.of("W8", label + " no limits", unlimited.rate(tasks), unlimited.cpuPer(tasks)));
		int threads = this.bench.threads(mode);
		report(label + " global-concurrency=" + threads, unlimited, tasks,
				attempt("W8 global-concurrency", () -> drain(globalConcurrency(threads), tasks)));
		report(label + " global-concurrency=" + FAR_ABOVE, unlimited, tasks,
				attempt("W8 global-concurrency far above", () -> drain(globalConcurrency(FAR_ABOVE), tasks)));
		report(label + " rate-limit=" + RATE + "/1s", unlimited, tasks,
				attempt("W8 rate-limit", () -> drain(rateLimit(), tasks)));
	}

	/** A rate limit no drain here comes near. */
	private static final int RATE = 1_000_000;

	/** A global concurrency the instance never reaches, prefetch included: the cost of the locked claim alone. */
	private static final int FAR_ABOVE = 1_000;

	private void report(String label, Timing unlimited, int tasks, Timing limited) {
		if (limited != null) {
			this.bench.report()
				.add(Result.of("W8", label, limited.rate(tasks), limited.cpuPer(tasks))
					.comparedWith("no limits", unlimited.rate(tasks)));
		}
	}

	private LibraryProperties globalConcurrency(int limit) {
		return this.bench.library().with(queueProperty("global-concurrency"), String.valueOf(limit));
	}

	private LibraryProperties rateLimit() {
		return this.bench.library()
			.with(queueProperty("rate-limit.limit"), String.valueOf(RATE))
			.with(queueProperty("rate-limit.period"), "1s");
	}

	private static String queueProperty(String name) {
		return "taskqueue.queues." + Mode.TRANSACTIONAL.queue() + "." + name;
	}

	private Timing drain(LibraryProperties properties, int tasks) {
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			LibraryDrain.enqueue(database, properties, Mode.TRANSACTIONAL, tasks);
			System.gc(); // the enqueue's garbage is not the drain's
			return LibraryDrain.drain(database, properties, Mode.TRANSACTIONAL, tasks);
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

}
