package dev.taskqueue.benchmark;

import java.util.List;

/**
 * Every option of the command line ({@link BenchmarkOptions}): its name, its value by default and with
 * {@code --quick} ({@code null}: the same), and what {@code --help} says of it.
 */
final class BenchmarkOptionTable {

	static final List<Option> OPTIONS = List.of(
			new Option("workloads", "W1,W2,W3,W4,W5", null, "workloads to run"),
			new Option("runs", "1", null, "runs of each workload; the summary shows medians"),
			new Option("jdbc-url", "", null, "a PostgreSQL server instead of the embedded one, e.g. "
					+ "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres (scratch databases are made there)"),
			new Option("tasks", "50000", "5000", "W1 tasks per drain of the one-per-transaction contenders (transactional, "
					+ "its baseline, the peers); W4 tasks per enqueueAll measurement"),
			new Option("batch-tasks", "300000", "5000", "W1 tasks per drain of the batch contenders (grouped, batched, "
					+ "the raw batches)"),
			new Option("warmup-tasks", "10000", "1000", "tasks of the unreported warm-ups of W1, W3 and W4; 0 skips them"),
			new Option("batch-warmup-tasks", "50000", "1000", "tasks of W1's unreported warm-up of each batch contender"),
			new Option("modes", "transactional,grouped,batched", null, "handler completion modes of W1 and W3"),
			new Option("batch-size", "50", null, "claim and delete size of the raw batch baseline that grouped "
					+ "and batched are compared with, whatever their own sizes"),
			new Option("raw-batch-sizes", "10,50,100,200", null, "W1 raw batch sizes measured besides, "
					+ "to report the best"),
			new Option("w1-others", DbSchedulerDrain.NAME + "," + DbSchedulerDrain.DEFAULTS_NAME + "," + JobRunrDrain.NAME,
					null, "W1 contenders besides the modes and their baselines (also " + RawShape.claimThenDelete().name()
							+ ", a weaker reference); empty for none"),
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
					+ "under the server's max_connections)"),
			new Option("w10-tasks", "10000000", "100000", "W10 waiting tasks loaded with COPY"),
			new Option("w10-dead", "1000000", "10000", "W10 dead letters loaded with COPY"),
			new Option("w10-history", "1000000", "10000", "W10 completed tasks in the history, loaded with COPY"),
			new Option("w10-requests", "50", "10", "W10 timed requests of each dashboard page"),
			new Option("w10-warmup-requests", "3", "1", "W10 untimed requests of each page before those"),
			new Option("w11-big", "100000", "20000", "W11 tasks of the big tenant, enqueued before the small ones"),
			new Option("w11-rate", "200", "100", "W11 tasks the ten small tenants enqueue per second, in all"),
			new Option("w11-seconds", "10", "3", "W11 seconds the small tenants enqueue"));

	private BenchmarkOptionTable() {
	}

	record Option(String name, String standard, String quick, String description) {
	}

}
