package dev.taskqueue.benchmark;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

import dev.taskqueue.TaskQueue;

/**
 * W2: a steady trickle of tasks from a producer instance into the idle worker of another instance on the same
 * database; pickup latency from the moment the enqueue committed to the start of the handler, on this JVM's clock.
 * Polling only at each poll interval, then with LISTEN/NOTIFY against a plain JDBC LISTEN/NOTIFY loop.
 */
final class LatencyWorkload implements Workload {

	private static final String POLL_INTERVAL = "taskqueue.worker.poll-interval";

	private static final String NOTIFY = "taskqueue.notify.enabled";

	private static final Duration SETTLE = Duration.ofSeconds(1);

	private final Bench bench;

	LatencyWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W2";
	}

	@Override
	public void run() {
		for (Duration pollInterval : this.bench.options().w2PollIntervals()) {
			String interval = pollInterval.toMillis() + "ms";
			this.bench.report().add(library("wake-up=poll poll-interval=" + interval,
					this.bench.library().with(NOTIFY, "false").with(POLL_INTERVAL, interval)));
		}
		Result baseline = rawNotify();
		this.bench.report().add(baseline);
		this.bench.report().add(library("wake-up=notify", this.bench.library().with(NOTIFY, "true"))
			.comparedWith("raw-notify", baseline.headline()));
	}

	private Result library(String wakeUp, LibraryProperties properties) {
		Samples samples = new Samples(this.bench.options());
		Probe probe = new Probe(samples.total());
		try (ScratchDatabase database = this.bench.database().createScratch();
				LibraryInstance producer = LibraryInstance.producer(database.url(), properties);
				LibraryInstance worker = LibraryInstance.worker(database.url(), properties, Mode.TRANSACTIONAL,
						probe)) {
			Thread.sleep(SETTLE.toMillis()); // lets the worker find nothing and wait
			TaskQueue taskQueue = producer.taskQueue();
			Pacer pacer = new Pacer(samples.rate);
			for (int seq = 0; seq < samples.total(); seq++) {
				pacer.awaitTurn(seq);
				// No transaction around it: the insert commits on its own before enqueue returns.
				taskQueue.enqueue(Mode.TRANSACTIONAL.queue(), new BenchTask(seq));
				samples.committed[seq] = System.nanoTime();
			}
			probe.awaitHandled(samples.total());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		for (int seq = 0; seq < samples.total(); seq++) {
			samples.started.set(seq, probe.startNanos(seq));
		}
		return samples.result(label(wakeUp) + " mode=transactional config="
				+ this.bench.options().describeLibraryProperties());
	}

	private Result rawNotify() {
		Samples samples = new Samples(this.bench.options());
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			LibraryDrain.migrate(database, this.bench.library());
			new NotifyBaseline(database.url(), this.bench.library().taskTable()).run(Mode.TRANSACTIONAL.queue(),
					samples.rate, samples.committed, samples.started);
		}
		return samples.result(label("wake-up=notify baseline=raw-notify"));
	}

	private String label(String what) {
		return "latency " + what + " rate=" + this.bench.options().w2Rate() + "/s";
	}

	/** When each task's enqueue committed and when its handler started; the first second is warm-up. */
	private static final class Samples {

		final int rate;

		final int warmup;

		final long[] committed;

		final AtomicLongArray started;

		Samples(BenchmarkOptions options) {
			this.rate = options.w2Rate();
			this.warmup = this.rate;
			this.committed = new long[this.warmup + this.rate * options.w2Seconds()];
			this.started = new AtomicLongArray(this.committed.length);
		}

		int total() {
			return this.committed.length;
		}

		Result result(String label) {
			double[] millis = new double[total() - this.warmup];
			for (int seq = this.warmup; seq < total(); seq++) {
				// A handler can start a hair before the producer thread reads the clock after its commit.
				millis[seq - this.warmup] = Math.max(0, this.started.get(seq) - this.committed[seq]) / 1e6;
			}
			Arrays.sort(millis);
			return Result.of("W2", label, Metric.millis("p50", percentile(millis, 50)),
					Metric.millis("p95", percentile(millis, 95)), Metric.millis("p99", percentile(millis, 99)),
					Metric.millis("max", millis[millis.length - 1]), Metric.count("samples", millis.length));
		}

		/** The nearest-rank percentile of sorted {@code values}. */
		private static double percentile(double[] values, int percent) {
			int rank = (int) Math.ceil(percent / 100.0 * values.length);
			return values[Math.max(0, rank - 1)];
		}

	}

}
