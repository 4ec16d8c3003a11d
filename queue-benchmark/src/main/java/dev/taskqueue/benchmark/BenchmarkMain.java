package dev.taskqueue.benchmark;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs the selected workloads against TaskQueue and the raw-SQL baselines and prints the results and a summary.
 */
public final class BenchmarkMain {

	private BenchmarkMain() {
	}

	public static void main(String[] args) {
		System.exit(run(System.out, args));
	}

	/** Runs the benchmark; returns 0, 1 when a workload failed, 2 when the options are wrong. */
	static int run(PrintStream out, String... args) {
		BenchmarkOptions options;
		try {
			options = BenchmarkOptions.parse(args);
			options.workloads().forEach(BenchmarkMain::checkWorkload);
			options.modes();
			options.batchSize();
			options.rawBatchSizes();
			options.w1Other(DbSchedulerDrain.NAME);
		}
		catch (IllegalArgumentException ex) {
			out.println(ex.getMessage());
			out.println();
			out.print(BenchmarkOptions.usage());
			return 2;
		}
		if (options.help()) {
			out.print(BenchmarkOptions.usage());
			return 0;
		}
		Report report = new Report(out);
		try (BenchmarkDatabase database = BenchmarkDatabase.start(options.jdbcUrl(), options.serverSettings())) {
			Bench bench = new Bench(options, database, report, new LibraryProperties(options.libraryProperties()));
			report.info(database.describe());
			report.info(machine());
			for (Workload workload : workloads(bench)) {
				try {
					if (options.warmupTasks() > 0) {
						workload.warmUp();
					}
					for (int run = 1; run <= options.runs(); run++) {
						report.startRun(run);
						report.info(workload.id() + " run " + run + " starts; " + load());
						workload.run();
						report.info(workload.id() + " run " + run + " ends; " + load());
					}
				}
				catch (RuntimeException ex) {
					report.failed(workload.id(), ex);
				}
			}
		}
		report.printSummary();
		return report.hasFailures() ? 1 : 0;
	}

	private static void checkWorkload(String id) {
		if (!id.matches("W([1-9]|1[01])")) {
			throw new IllegalArgumentException("--workloads takes W1 to W11, but got '" + id + "'");
		}
	}

	private static List<Workload> workloads(Bench bench) {
		List<Workload> workloads = new ArrayList<>();
		for (String id : bench.options().workloads()) {
			workloads.add(switch (id) {
				case "W1" -> new DrainWorkload(bench);
				case "W2" -> new LatencyWorkload(bench);
				case "W3" -> new BacklogWorkload(bench);
				case "W4" -> new EnqueueWorkload(bench);
				case "W6" -> new OrderedDrainWorkload(bench);
				case "W8" -> new LimitsWorkload(bench);
				case "W7" -> new BatchDrainWorkload(bench);
				case "W9" -> new ShardedClaimsWorkload(bench);
				case "W10" -> new DashboardScaleWorkload(bench);
				case "W11" -> new FairnessWorkload(bench);
				default -> new BloatWorkload(bench);
			});
		}
		return workloads;
	}

	/** The machine's load, which tells how far other processes may have skewed the figures. */
	private static String load() {
		return String.format(Locale.ROOT, "load average (1 min) %.2f on %d CPUs",
				ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
				Runtime.getRuntime().availableProcessors());
	}

	private static String machine() {
		Runtime runtime = Runtime.getRuntime();
		return "Java " + System.getProperty("java.version") + " on " + System.getProperty("os.name") + " "
				+ System.getProperty("os.arch") + ", " + runtime.availableProcessors() + " CPUs, max heap "
				+ runtime.maxMemory() / (1024 * 1024) + " MB";
	}

}
