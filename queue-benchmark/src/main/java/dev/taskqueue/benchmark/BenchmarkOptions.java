package dev.taskqueue.benchmark;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.boot.convert.DurationStyle;

/**
 * The command line: which workloads, how big, which database, and the properties passed to every TaskQueue instance.
 */
final class BenchmarkOptions {

	private static final List<String> PASS_THROUGH_PREFIXES = List.of("taskqueue.", "spring.", "logging.");

	private static final String SERVER_SETTING_PREFIX = "pg.";

	private static final List<Option> OPTIONS = List.of(
			new Option("workloads", "W1,W2,W3,W4,W5", null, "workloads to run"),
			new Option("runs", "1", null, "runs of each workload; the summary shows medians"),
			new Option("jdbc-url", "", null, "a PostgreSQL server instead of the embedded one, e.g. "
					+ "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres (scratch databases are made there)"),
			new Option("tasks", "50000", "5000", "W1 tasks per drain; W4 tasks per enqueueAll measurement"),
			new Option("warmup-tasks", "10000", "1000", "tasks of the unreported warm-ups of W1, W3 and W4; 0 skips them"),
			new Option("modes", "transactional,grouped,batched", null, "handler completion modes of W1 and W3"),
			new Option("batch-size", "50", null, "claim and delete size of the raw batch baseline that grouped "
					+ "and batched are compared with, whatever their own sizes"),
			new Option("raw-batch-sizes", "10,50,100,200", null, "W1 raw batch sizes measured besides, "
					+ "to report the best"),
			new Option("w1-others", DbSchedulerDrain.NAME + "," + RawShape.claimThenDelete().name() + ","
					+ RawShape.deleteReturning().name(), null,
					"W1 contenders besides the modes and their baselines; empty for none"),
			new Option("db-scheduler-upper-limit", "4.0", null, "db-scheduler's lock-and-fetch upper limit (a "
					+ "fraction of its threads; its own default is 1.0)"),
			new Option("w2-rate", "200", null, "W2 tasks enqueued per second"),
			new Option("w2-seconds", "30", "5", "W2 measured seconds per poll interval (after 1 s of warm-up)"),
			new Option("w2-poll-intervals", "500ms,50ms", null, "W2 values of taskqueue.worker.poll-interval"),
			new Option("w3-backlogs", "10000,1000000", "10000,100000", "W3 tasks waiting when the worker starts"),
			new Option("w3-completions", "5000", "2000", "W3 completions the claim rate is measured over"),
			new Option("w4-single-tasks", "10000", "1000", "W4 tasks enqueued one per transaction"),
			new Option("w5-minutes", "10", "0.5", "W5 minutes of churn, once without and once with a pinned xmin"),
			new Option("w5-rate", "1000", null, "W5 tasks enqueued (and handled) per second"),
			new Option("w9-instances", "8", null, "W9 worker instances draining one queue together"),
			new Option("w9-buckets", "1,16", null, "W9 values of the queue's buckets, measured one after another"),
			new Option("w9-pool-size", "9", null, "W9 connections per worker instance (8 instances must fit "
					+ "under the server's max_connections)"));

	private final Map<String, String> values;

	private final Map<String, String> libraryProperties;

	private final Map<String, String> serverSettings;

	private final boolean help;

	private BenchmarkOptions(Map<String, String> values, Map<String, String> libraryProperties,
			Map<String, String> serverSettings, boolean help) {
		this.values = values;
		this.libraryProperties = libraryProperties;
		this.serverSettings = serverSettings;
		this.help = help;
	}

	/**
	 * Reads {@code --name=value} options, {@code --quick} and {@code --help}.
	 * @throws IllegalArgumentException naming the option at fault
	 */
	static BenchmarkOptions parse(String... args) {
		Map<String, String> explicit = new LinkedHashMap<>();
		Map<String, String> library = new LinkedHashMap<>();
		Map<String, String> server = new LinkedHashMap<>();
		boolean quick = false;
		boolean help = false;
		for (String arg : args) {
			if (arg.equals("--quick")) {
				quick = true;
				continue;
			}
			if (arg.equals("--help") || arg.equals("-h")) {
				help = true;
				continue;
			}
			int equals = arg.indexOf('=');
			if (!arg.startsWith("--") || equals < 0) {
				throw new IllegalArgumentException("Options look like --name=value, but got '" + arg + "'");
			}
			String name = arg.substring(2, equals);
			String value = arg.substring(equals + 1);
			if (PASS_THROUGH_PREFIXES.stream().anyMatch(name::startsWith)) {
				library.put(name, value);
			}
			else if (name.startsWith(SERVER_SETTING_PREFIX)) {
				server.put(name.substring(SERVER_SETTING_PREFIX.length()), value);
			}
			else if (OPTIONS.stream().anyMatch((option) -> option.name.equals(name))) {
				explicit.put(name, value);
			}
			else {
				throw new IllegalArgumentException("Unknown option --" + name + "; --help lists them");
			}
		}
		Map<String, String> values = new LinkedHashMap<>();
		for (Option option : OPTIONS) {
			values.put(option.name, (quick && option.quick != null) ? option.quick : option.standard);
		}
		values.putAll(explicit);
		BenchmarkOptions options = new BenchmarkOptions(values, library, server, help);
		if (!options.jdbcUrl().isEmpty() && !server.isEmpty()) {
			throw new IllegalArgumentException("--pg.* settings apply to the embedded server only, not to --jdbc-url");
		}
		return options;
	}

	static String usage() {
		StringBuilder usage = new StringBuilder("""
				Usage: java -jar queue-benchmark/target/queue-benchmark.jar [--option=value ...]

				  --quick                        small numbers for everything (a few minutes); explicit options win
				  --help                         this list
				""");
		for (Option option : OPTIONS) {
			usage.append(String.format("  --%-28s %s%s%n", option.name + "=" + option.standard, option.description,
					(option.quick != null) ? " (--quick: " + option.quick + ")" : ""));
		}
		usage.append("""
				  --taskqueue.*=, --spring.*=, --logging.*=
				                                 given to every TaskQueue instance, e.g. --taskqueue.worker.concurrency=16
				  --pg.<setting>=                a setting of the embedded PostgreSQL server, e.g. --pg.fsync=on
				""");
		return usage.toString();
	}

	boolean help() {
		return this.help;
	}

	List<String> workloads() {
		return list("workloads").stream().map(String::toUpperCase).toList();
	}

	int runs() {
		return positiveInt("runs");
	}

	String jdbcUrl() {
		return this.values.get("jdbc-url");
	}

	int tasks() {
		return positiveInt("tasks");
	}

	int warmupTasks() {
		return parseInt("warmup-tasks", this.values.get("warmup-tasks"), 0);
	}

	List<Mode> modes() {
		return list("modes").stream().map(Mode::of).toList();
	}

	int w9Instances() {
		return positiveInt("w9-instances");
	}

	List<Integer> w9Buckets() {
		return list("w9-buckets").stream().map((value) -> parseInt("w9-buckets", value, 1)).toList();
	}

	int w9PoolSize() {
		return positiveInt("w9-pool-size");
	}

	/** The raw batch baseline's batch size. */
	int batchSize() {
		return positiveInt("batch-size");
	}

	/** The raw batch sizes W1 measures besides {@link #batchSize()}. */
	List<Integer> rawBatchSizes() {
		return list("raw-batch-sizes").stream().map((value) -> parseInt("raw-batch-sizes", value, 1)).toList();
	}

	/**
	 * Whether W1 measures {@code contender}: {@code db-scheduler}, {@code raw-claim-then-delete} or
	 * {@code raw-delete-returning}.
	 */
	boolean w1Other(String contender) {
		List<String> known = List.of(DbSchedulerDrain.NAME, RawShape.claimThenDelete().name(),
				RawShape.deleteReturning().name());
		List<String> others = list("w1-others");
		for (String other : others) {
			if (!known.contains(other)) {
				throw new IllegalArgumentException("--w1-others takes " + String.join(", ", known) + ", but got '"
						+ other + "'");
			}
		}
		return others.contains(contender);
	}

	int w2Rate() {
		return positiveInt("w2-rate");
	}

	int w2Seconds() {
		return positiveInt("w2-seconds");
	}

	List<Duration> w2PollIntervals() {
		return list("w2-poll-intervals").stream().map((value) -> {
			try {
				return DurationStyle.detectAndParse(value);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("--w2-poll-intervals takes durations such as 500ms, but got '"
						+ value + "'");
			}
		}).toList();
	}

	List<Integer> w3Backlogs() {
		return list("w3-backlogs").stream().map((value) -> parseInt("w3-backlogs", value, 1)).toList();
	}

	int w3Completions() {
		return positiveInt("w3-completions");
	}

	int w4SingleTasks() {
		return positiveInt("w4-single-tasks");
	}

	/** db-scheduler's lock-and-fetch upper limit, a fraction of its threads. */
	double dbSchedulerUpperLimit() {
		String value = this.values.get("db-scheduler-upper-limit");
		try {
			double limit = Double.parseDouble(value);
			if (limit >= DbSchedulerDrain.LOWER_LIMIT) {
				return limit;
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new IllegalArgumentException("--db-scheduler-upper-limit must be a number of at least "
				+ DbSchedulerDrain.LOWER_LIMIT + ", but was '" + value + "'");
	}

	Duration w5Duration() {
		String value = this.values.get("w5-minutes");
		try {
			double minutes = Double.parseDouble(value);
			if (minutes > 0) {
				return Duration.ofMillis(Math.round(minutes * 60_000));
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new IllegalArgumentException("--w5-minutes must be a positive number, but was '" + value + "'");
	}

	int w5Rate() {
		return positiveInt("w5-rate");
	}

	/** The {@code --taskqueue.*}, {@code --spring.*} and {@code --logging.*} options, for every TaskQueue instance. */
	Map<String, String> libraryProperties() {
		return this.libraryProperties;
	}

	/** The {@code --pg.*} options: server settings of the embedded PostgreSQL. */
	Map<String, String> serverSettings() {
		return this.serverSettings;
	}

	/** The pass-through properties as they appear in result labels. */
	String describeLibraryProperties() {
		return this.libraryProperties.isEmpty() ? "default"
				: this.libraryProperties.entrySet().stream().map((e) -> e.getKey() + "=" + e.getValue())
					.collect(Collectors.joining(","));
	}

	private List<String> list(String name) {
		return Arrays.stream(this.values.get(name).split(",")).map(String::trim).filter((v) -> !v.isEmpty()).toList();
	}

	private int positiveInt(String name) {
		return parseInt(name, this.values.get(name), 1);
	}

	private static int parseInt(String name, String value, int minimum) {
		try {
			int number = Integer.parseInt(value.replace("_", ""));
			if (number >= minimum) {
				return number;
			}
		}
		catch (NumberFormatException ex) {
			// reported below
		}
		throw new IllegalArgumentException("--" + name + " takes whole numbers of at least " + minimum
				+ ", but got '" + value + "'");
	}

	private record Option(String name, String standard, String quick, String description) {
	}

}
