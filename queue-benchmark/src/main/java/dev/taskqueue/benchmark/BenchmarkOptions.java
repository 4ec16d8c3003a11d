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
			else if (BenchmarkOptionTable.OPTIONS.stream().anyMatch((option) -> option.name().equals(name))) {
				explicit.put(name, value);
			}
			else {
				throw new IllegalArgumentException("Unknown option --" + name + "; --help lists them");
			}
		}
		Map<String, String> values = new LinkedHashMap<>();
		for (BenchmarkOptionTable.Option option : BenchmarkOptionTable.OPTIONS) {
			values.put(option.name(), (quick && option.quick() != null) ? option.quick() : option.standard());
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
		for (BenchmarkOptionTable.Option option : BenchmarkOptionTable.OPTIONS) {
			usage.append(String.format("  --%-28s %s%s%n", option.name() + "=" + option.standard(),
					option.description(), (option.quick() != null) ? " (--quick: " + option.quick() + ")" : ""));
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

	int batchTasks() {
		return positiveInt("batch-tasks");
	}

	int batchWarmupTasks() {
		return positiveInt("batch-warmup-tasks");
	}

	int warmupTasks() {
		return parseInt("warmup-tasks", this.values.get("warmup-tasks"), 0);
	}

	List<Mode> modes() {
		return list("modes").stream().map(Mode::of).toList();
	}

	int w11Big() {
		return positiveInt("w11-big");
	}

	int w11Rate() {
		return positiveInt("w11-rate");
	}

	int w11Seconds() {
		return positiveInt("w11-seconds");
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

	int w10Tasks() {
		return positiveInt("w10-tasks");
	}

	int w10Dead() {
		return positiveInt("w10-dead");
	}

	int w10History() {
		return positiveInt("w10-history");
	}

	int w10Requests() {
		return positiveInt("w10-requests");
	}

	int w10WarmupRequests() {
		return parseInt("w10-warmup-requests", this.values.get("w10-warmup-requests"), 0);
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
	 * Whether W1 measures {@code contender}: {@code db-scheduler}, {@code db-scheduler-defaults}, {@code jobrunr}
	 * or {@code raw-claim-then-delete}.
	 */
	boolean w1Other(String contender) {
		List<String> known = List.of(DbSchedulerDrain.NAME, DbSchedulerDrain.DEFAULTS_NAME, JobRunrDrain.NAME,
				RawShape.claimThenDelete().name());
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

}
