package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * W10: the dashboard at scale (issue 28). {@code --w10-tasks} (10,000,000) waiting tasks, {@code --w10-dead}
 * (1,000,000) dead letters and {@code --w10-history} (1,000,000) completed tasks are loaded with {@code COPY}
 * ({@link ScaleRows}); then an instance serves the dashboard over HTTP with no worker, and each page is requested
 * {@code --w10-warmup-requests} (3) times untimed and {@code --w10-requests} (50) times timed, the pages taking
 * turns so that a burst of load on the machine falls on all of them alike. Each page's p50, p95 and longest time
 * are reported, then each statement the instance ran with the shape of its plan ({@link PlanShapes}). Every page is
 * checked for what it must show, so the rows are read back by the library itself.
 * <p>
 * The dead letters filtered by a text that only one of them has are timed too, but apart: such a filter reads the
 * dead letters newest first until it has a page of matches, so a text that matches almost nothing reads the whole
 * table (bounded by the retention), by design.
 */
final class DashboardScaleWorkload implements Workload {

	/** The target for every page. */
	static final Duration TARGET = Duration.ofMillis(300);

	private static final String QUEUE = "scale-0";

	private final Bench bench;

	DashboardScaleWorkload(Bench bench) {
		this.bench = bench;
	}

	@Override
	public String id() {
		return "W10";
	}

	@Override
	public void run() {
		BenchmarkOptions options = this.bench.options();
		Report report = this.bench.report();
		try (ScratchDatabase database = this.bench.database().createScratch()) {
			LibraryDrain.migrate(database, this.bench.library());
			ScaleRows rows = new ScaleRows(options.w10Tasks(), options.w10Dead(), options.w10History(), now(database));
			long start = System.nanoTime();
			ScaleRows.Found found;
			try (Connection connection = database.connect()) {
				found = rows.load(connection, (step) -> report.info("W10 " + step + " after "
						+ TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) + " s"));
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not load W10's rows: " + ex.getMessage(), ex);
			}
			report.info("W10 table sizes: " + sizes(database));
			ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor();
			StatementRecorder recorder = new StatementRecorder();
			// The pages are requested one at a time: a small pool leaves room on a server that others share.
			LibraryProperties properties = this.bench.library()
				.with(LibraryProperties.POOL_SIZE, "4")
				.with("spring.datasource.hikari.minimum-idle", "1");
			try (LibraryInstance dashboard = LibraryInstance.dashboard(database.url(), properties, recorder)) {
				heartbeat.scheduleWithFixedDelay(() -> beat(database, rows), 0, 5, TimeUnit.SECONDS);
				measure(database, dashboard, recorder, found);
			}
			finally {
				heartbeat.shutdownNow();
			}
		}
	}

	private void measure(ScratchDatabase database, LibraryInstance dashboard, StatementRecorder recorder,
			ScaleRows.Found found) {
		BenchmarkOptions options = this.bench.options();
		DashboardClient client = new DashboardClient(dashboard.port());
		List<DashboardClient.Page> pages = pages(client, found);
		DashboardClient.Page rare = new DashboardClient.Page("dead-rare-text",
				"/taskqueue/dead?error=" + ScaleRows.Found.RARE, 1, ScaleRows.Found.RARE);
		for (int i = 0; i < options.w10WarmupRequests(); i++) {
			pages.forEach(client::get);
			client.get(rare);
		}
		PlanShapes plans = new PlanShapes(database);
		boolean figures = plans.reset();
		recorder.clear();
		List<List<Long>> times = new ArrayList<>();
		pages.forEach((page) -> times.add(new ArrayList<>()));
		for (int round = 0; round < options.w10Requests(); round++) {
			for (int i = 0; i < pages.size(); i++) {
				times.get(i).add(client.get(pages.get(i)));
			}
		}
		List<String> slow = new ArrayList<>();
		for (int i = 0; i < pages.size(); i++) {
			if (add(pages.get(i), times.get(i)) > TARGET.toNanos()) {
				slow.add(pages.get(i).name());
			}
		}
		List<Long> rareTimes = new ArrayList<>();
		for (int round = 0; round < Math.max(1, options.w10Requests() / 5); round++) {
			rareTimes.add(client.get(rare));
		}
		add(rare, rareTimes);
		this.bench.report()
			.info("W10 pages over " + TARGET.toMillis() + " ms at p95 (dead-rare-text apart, which reads every dead "
					+ "letter by design): " + (slow.isEmpty() ? "none" : String.join(", ", slow)));
		List<PlanShapes.Shape> shapes = plans.explain(recorder.statements(), figures);
		this.bench.report()
			.info("W10 statements run during the timed requests (" + (figures ? "pg_stat_statements" : "without "
					+ "pg_stat_statements: load it with --pg.shared_preload_libraries=pg_stat_statements") + "), by "
					+ "total time, each with its generic plan's nodes:");
		shapes.forEach((shape) -> this.bench.report().sample("W10", "statement " + shape.line()));
		long whole = shapes.stream().filter(PlanShapes.Shape::wholeTable).count();
		this.bench.report().info("W10 statements whose plan reads a whole task, dead-letter or history table: " + whole);
	}

	/** Reports {@code page}'s figures; returns its p95 in nanoseconds. */
	private long add(DashboardClient.Page page, List<Long> nanos) {
		long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
		long p50 = percentile(sorted, 0.50);
		long p95 = percentile(sorted, 0.95);
		this.bench.report()
			.add(Result.of("W10", "page=" + page.name(), Metric.millis("p50", p50 / 1e6), Metric.millis("p95", p95 / 1e6),
					Metric.millis("max", sorted[sorted.length - 1] / 1e6), Metric.count("requests", sorted.length)));
		return p95;
	}

	static long percentile(long[] sorted, double share) {
		return sorted[Math.max(0, (int) Math.ceil(share * sorted.length) - 1)];
	}

	/**
	 * The pages, each checked for what it must show: the queue's views and their next pages (the pages' own links),
	 * the dead letters, a task, a dead letter, and the search by id (of a task and of a completed one), unique key
	 * (of a waiting, a dead and a completed task), ordering key and batch.
	 */
	private List<DashboardClient.Page> pages(DashboardClient client, ScaleRows.Found found) {
		String queue = "/taskqueue/queues/" + QUEUE;
		List<DashboardClient.Page> pages = new ArrayList<>();
		pages.add(new DashboardClient.Page("overview", "/taskqueue", 0, QUEUE));
		DashboardClient.Page ready = new DashboardClient.Page("ready", queue, 50, QUEUE);
		pages.add(ready);
		DashboardClient.Page next = client.next(ready, "ready-next", 50);
		pages.add(next);
		DashboardClient.Page deep = next;
		for (int i = 3; i <= 20; i++) {
			deep = client.next(deep, "ready-page-20", 50);
		}
		pages.add(deep);
		pages.add(new DashboardClient.Page("scheduled", queue + "?view=scheduled", 50, QUEUE));
		pages.add(new DashboardClient.Page("running", queue + "?view=running", 1, QUEUE));
		DashboardClient.Page held = new DashboardClient.Page("held", queue + "?view=held", 50, QUEUE);
		pages.add(held);
		pages.add(client.next(held, "held-next", 1));
		DashboardClient.Page dead = new DashboardClient.Page("dead", "/taskqueue/dead", 50, "");
		pages.add(dead);
		pages.add(client.next(dead, "dead-next", 1));
		pages.add(new DashboardClient.Page("dead-queue", "/taskqueue/dead?queue=scale-3", 1, "scale-3"));
		pages.add(new DashboardClient.Page("dead-rare-queue", "/taskqueue/dead?queue=" + ScaleRows.RARE_QUEUE, 1,
				ScaleRows.RARE_QUEUE));
		Instant from = found.deadFailedAt.truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(12));
		pages.add(new DashboardClient.Page("dead-queue-window", "/taskqueue/dead?queue=" + found.deadQueue + "&from="
				+ utc(from) + "&before=" + utc(from.plus(Duration.ofDays(1))), 1, found.deadQueue));
		pages.add(new DashboardClient.Page("task", "/taskqueue/tasks/" + found.readyTask, 0,
				found.readyTask.toString()));
		pages.add(new DashboardClient.Page("dead-task", "/taskqueue/tasks/" + found.deadTask, 0,
				found.deadTask.toString()));
		pages.add(search("search-id", found.readyTask.toString(), ">ready<"));
		pages.add(search("search-history-id", found.completedTask.toString(), ">completed<"));
		pages.add(search("search-dead-id", found.deadTask.toString(), ">dead<"));
		pages.add(search("search-unique-key", found.uniqueKey, ">unique key<"));
		pages.add(search("search-ordering-key", found.orderingKey, ">held<"));
		pages.add(search("search-batch", found.batch.toString(), ">batch<"));
		pages.add(search("search-dead-unique-key", found.deadUniqueKey, ">dead<"));
		pages.add(search("search-history-unique-key", found.historyUniqueKey, ">completed<"));
		return pages;
	}

	private static DashboardClient.Page search(String name, String text, String shown) {
		return new DashboardClient.Page(name, "/taskqueue/search?q=" + text, 1, shown);
	}

	private static String utc(Instant time) {
		return LocalDateTime.ofInstant(time, ZoneOffset.UTC).toString();
	}

	private static Instant now(ScratchDatabase database) {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet now = statement.executeQuery("SELECT now()")) {
			now.next();
			return now.getTimestamp(1).toInstant();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String sizes(ScratchDatabase database) {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet sizes = statement.executeQuery("""
						SELECT string_agg(relname || ' ' || pg_size_pretty(pg_relation_size(oid)) || ' + indexes '
						                  || pg_size_pretty(pg_indexes_size(oid)), ', ' ORDER BY relname)
						FROM pg_class WHERE relname IN ('taskqueue_task', 'taskqueue_dead_task', 'taskqueue_history')
						""")) {
			sizes.next();
			return sizes.getString(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	// The running tasks' session stays alive, as its instance's heartbeat would keep it.
	private static void beat(ScratchDatabase database, ScaleRows rows) {
		try (Connection connection = database.connect();
				PreparedStatement statement = connection
					.prepareStatement("UPDATE taskqueue_session SET heartbeat_at = now() WHERE id = ?")) {
			statement.setObject(1, rows.session());
			statement.executeUpdate();
		}
		catch (SQLException ex) {
			// the next beat tries again; the database may be going away at the end
		}
	}

}
