package dev.taskqueue.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * W9: what hash-sharded claims buy on one PostgreSQL server. {@code --w9-instances} (8) worker instances, each at
 * the benchmark's concurrency (8), drain N no-op tasks of one queue together, once for each of
 * {@code --w9-buckets} (1 and 16), one after the other in every run (the order alternates between runs), so that
 * the ratio shares the run's conditions. The instances start first and sit idle; the N tasks are then enqueued by
 * a producer (with the same bucket count) in one transaction, so that they all become ready at once, and the drain
 * is timed from that commit until the table is empty. Besides the rate it reports the contention the claims met
 * (see {@link ContentionSampler}).
 */
final class ShardedClaimsWorkload implements Workload {

	private final Bench bench;

	private int run;

	ShardedClaimsWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W9";
	}

	@Override
	public void warmUp() {
		int tasks = this.bench.options().warmupTasks();
		Mode mode = this.bench.options().modes().get(0);
		for (int buckets : this.bench.options().w9Buckets()) {
			attempt("W9 warm-up buckets=" + buckets, () -> drain(mode, buckets, tasks));
		}
	}

	@Override
	public void run() {
		int tasks = this.bench.options().tasks();
		int instances = this.bench.options().w9Instances();
		this.bench.report()
			.info("W9 " + instances + " worker instances drain one queue; tasks enqueued in one transaction once they "
					+ "are idle, timed from its commit until the table is empty");
		List<Integer> counts = new ArrayList<>(this.bench.options().w9Buckets());
		if (this.run++ % 2 == 1) {
			java.util.Collections.reverse(counts); // so that neither count always runs first
		}
		for (Mode mode : this.bench.options().modes()) {
			List<Measured> measured = new ArrayList<>();
			for (int buckets : counts) {
				Measured result = attempt("W9 mode=" + mode.label() + " buckets=" + buckets,
						() -> drain(mode, buckets, tasks));
				if (result != null) {
					measured.add(result);
				}
			}
			measured.sort(java.util.Comparator.comparingInt(Measured::buckets));
			Measured first = measured.isEmpty() ? null : measured.get(0); // the fewest buckets: the baseline
			for (Measured result : measured) {
				String label = "drain " + this.bench.libraryLabel(mode) + " instances=" + instances + " tasks=" + tasks
						+ " buckets=" + result.buckets();
				Result line = Result.of("W9", label, result.timing().rate(tasks), result.timing().cpuPer(tasks));
				for (Metric metric : result.contention().metrics(tasks)) {
					line = line.and(metric);
				}
				if (first != null && result != first) {
					line = line.comparedWith("buckets=" + first.buckets(), first.timing().rate(tasks));
				}
				this.bench.report().add(line);
			}
		}
	}

	private Measured drain(Mode mode, int buckets, int tasks) {
		LibraryProperties properties = this.bench.library()
			.with("taskqueue.queues." + mode.queue() + ".buckets", String.valueOf(buckets))
			.with(LibraryProperties.POOL_SIZE, String.valueOf(this.bench.options().w9PoolSize()))
			.with("spring.datasource.hikari.minimum-idle", "1");
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			LibraryDrain.migrate(database, properties);
			Probe probe = new Probe();
			List<LibraryInstance> workers = new ArrayList<>();
			ContentionSampler sampler = new ContentionSampler(database);
			try {
				Timing timing;
				try (QueueTable table = new QueueTable(database, properties.taskTable());
						LibraryInstance producer = LibraryInstance.producer(database.url(),
								properties.with(LibraryProperties.POOL_SIZE, "2"))) {
					for (int i = 0; i < this.bench.options().w9Instances(); i++) {
						workers.add(LibraryInstance.worker(database.url(), properties, mode, probe));
					}
					System.gc();
					TransactionTemplate transaction = new TransactionTemplate(
							producer.bean(PlatformTransactionManager.class));
					transaction.executeWithoutResult((status) -> LibraryDrain.enqueueInBatches(producer.taskQueue(),
							mode.queue(), 0, tasks, LibraryDrain.ENQUEUE_BATCH));
					long start = System.nanoTime();
					long startCpu = Timing.otherThreadsCpuNow();
					sampler.start();
					probe.awaitHandled(tasks);
					long end = table.awaitEmpty(mode.queue());
					timing = new Timing(end - start, Timing.otherThreadsCpuNow() - startCpu);
					sampler.stop();
				}
				workers.forEach(LibraryInstance::close); // their backends flush their statistics as they end
				workers.clear();
				this.bench.report()
					.info("W9 mode=" + mode.label() + " buckets=" + buckets + " active backends' waits: "
							+ sampler.topEvents(5));
				return new Measured(buckets, timing, sampler.result());
			}
			finally {
				workers.forEach(LibraryInstance::close);
				sampler.close();
			}
		}
	}

	private <T> T attempt(String what, Supplier<T> measure) {
		try {
			return measure.get();
		}
		catch (RuntimeException ex) {
			this.bench.report().failed(what, ex);
			return null;
		}
	}

	private record Measured(int buckets, Timing timing, ContentionSampler.Contention contention) {
	}

}
