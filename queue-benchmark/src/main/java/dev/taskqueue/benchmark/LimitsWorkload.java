package dev.taskqueue.benchmark;

import java.util.function.Supplier;

/**
 * W8: what a cluster-wide limit costs a queue that never reaches it. Drains N no-op tasks of the transactional
 * queue with one worker instance four ways, interleaved so that they share a run's conditions: without limits
 * (the baseline), with {@code global-concurrency} equal to the instance's concurrency (every freed slot waits for
 * a claim), with one far above what the instance claims (the cost of the locked claim alone), and with a rate limit
 * far above the drain's rate, in fixed and in sliding windows. Then both windows with a rate limit the drain
 * reaches ({@link #REACHED} per second): what each lets through. The limited queue claims through a short
 * transaction that locks the queue's row (see {@code LimitedClaims}); the tasks it claims ahead of its threads count
 * against its global concurrency. The two windows run next to each other, in turn first from one run to the next, and
 * sliding is compared with fixed in the same run.
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
		attempt("W8 warm-up rate-limit fixed", () -> drain(rateLimit(RATE, "fixed"), tasks));
		attempt("W8 warm-up rate-limit sliding", () -> drain(rateLimit(RATE, "sliding"), tasks));
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
		boolean slidingFirst = (this.runs++ % 2) == 1;
		// Never reached: fixed, sliding, sliding, fixed (or the other way round), each window's two drains summed.
		Timing[] first = windows(RATE, tasks, slidingFirst);
		Timing[] second = windows(RATE, tasks, !slidingFirst);
		Timing fixed = sum(first[0], second[0]);
		Timing sliding = sum(first[1], second[1]);
		if (fixed != null) {
			this.bench.report()
				.add(Result.of("W8", label + " rate-limit=" + RATE + "/1s window=fixed", fixed.rate(tasks * 2),
						fixed.cpuPer(tasks * 2))
					.comparedWith("no limits", unlimited.rate(tasks)));
		}
		compare(label + " rate-limit=" + RATE + "/1s window=sliding", "window=fixed", fixed, tasks * 2, sliding);
		// Reached: what each lets through, ten periods' worth of tasks.
		int paced = Math.min(tasks, REACHED * 10);
		String pacedLabel = "drain " + this.bench.libraryLabel(mode) + " tasks=" + paced + " rate-limit=" + REACHED
				+ "/1s";
		Timing[] reached = windows(REACHED, paced, slidingFirst);
		if (reached[0] != null) {
			this.bench.report()
				.add(Result.of("W8", pacedLabel + " window=fixed", reached[0].rate(paced), reached[0].cpuPer(paced)));
		}
		compare(pacedLabel + " window=sliding", "window=fixed", reached[0], paced, reached[1]);
	}

	/** Two drains as one, {@code null} when either failed. */
	private static Timing sum(Timing first, Timing second) {
		return (first == null || second == null) ? null
				: new Timing(first.nanos() + second.nanos(), first.cpuNanos() + second.cpuNanos());
	}

	/** Drains with a rate limit of {@code limit} per second in fixed windows and in sliding ones: {fixed, sliding}. */
	private Timing[] windows(int limit, int tasks, boolean slidingFirst) {
		Timing[] timings = new Timing[2];
		for (int i = 0; i < 2; i++) {
			boolean sliding = slidingFirst == (i == 0);
			String window = sliding ? "sliding" : "fixed";
			timings[sliding ? 1 : 0] = attempt("W8 rate-limit " + limit + " " + window,
					() -> drain(rateLimit(limit, window), tasks));
		}
		return timings;
	}

	private void compare(String label, String baseline, Timing baselineTiming, int tasks, Timing timing) {
		if (baselineTiming != null && timing != null) {
			this.bench.report()
				.add(Result.of("W8", label, timing.rate(tasks), timing.cpuPer(tasks))
					.comparedWith(baseline, baselineTiming.rate(tasks)));
		}
	}

	/** A rate limit no drain here comes near. */
	private static final int RATE = 1_000_000;

	/** A rate limit per second that the drain reaches: below what one instance drains here without limits. */
	private static final int REACHED = 300;

	/** How many runs began, to alternate which window runs first. */
	private int runs;

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

	private LibraryProperties rateLimit(int limit, String window) {
		return this.bench.library()
			.with(queueProperty("rate-limit.limit"), String.valueOf(limit))
			.with(queueProperty("rate-limit.period"), "1s")
			.with(queueProperty("rate-limit.window"), window);
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
