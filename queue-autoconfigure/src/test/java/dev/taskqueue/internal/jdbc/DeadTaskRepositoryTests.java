package dev.taskqueue.internal.jdbc;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import dev.taskqueue.DeadTask;
import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pages of dead letters cost the same on the first page and deep into a large table: each is a backward range
 * scan of an index of V1 or V2, (queue, failed_at) or (failed_at), that stops soon after the page, whatever the
 * queue filter and cursor. Checked on the plans PostgreSQL runs, with 100,000 dead rows: five queues that failed
 * in turn, and a rare one whose last failure is older than all of theirs, for which reading the (failed_at) index
 * and skipping the other queues' rows would read the whole table.
 */
class DeadTaskRepositoryTests {

	private static final int ROWS = 100_000;

	private static final int PAGE = 50;

	/**
	 * The rows a page may read: the page, one more, and the other queues' rows skipped on the (failed_at) index; a
	 * plan that sorts a whole queue reads thousands.
	 */
	private static final int MAX_ROWS_READ = 10 * PAGE;

	private static final Pattern INDEX_SCAN = Pattern.compile(
			"Index Scan Backward using (taskqueue_dead_task_queue_idx|taskqueue_dead_task_failed_at_idx) "
					+ "on taskqueue_dead_task .*actual rows=(\\d+)");

	private static final Pattern REMOVED_BY_FILTER = Pattern.compile("Rows Removed by Filter: (\\d+)");

	private static DeadTaskRepository deadTasks;

	private static JdbcClient jdbc;

	@BeforeAll
	static void fill() {
		DataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		deadTasks = new DeadTaskRepository(dataSource, tables);
		jdbc = JdbcClient.create(dataSource);
		// A stack trace's worth of error per row, failed one millisecond apart, in turn over five queues; one row
		// in a thousand goes to the rare queue, a day earlier.
		jdbc.sql("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error)
				SELECT gen_random_uuid(), CASE WHEN i % 1000 = 0 THEN 'rare' ELSE 'q' || (i % 5) END,
				       jsonb_build_object('n', i), 0, 5, now() - interval '2 days',
				       now() - i * interval '1 millisecond' - CASE WHEN i % 1000 = 0 THEN interval '1 day'
				                                                 ELSE interval '0' END,
				       'java.lang.IllegalStateException: boom ' || i
				           || repeat(E'\\n\\tat com.example.Handler.handle(Handler.java:42)', 10)
				FROM generate_series(1, :rows) i
				""").param("rows", ROWS).update();
		jdbc.sql("ANALYZE taskqueue_dead_task").update();
	}

	@Test
	void everyPageIsABoundedBackwardIndexScan() {
		for (String queue : List.of("q3", "rare")) {
			List<DeadTask> all = deadTasks.page(queue, null, null, ROWS);
			DeadTask deep = all.get(all.size() * 3 / 4);
			assertBoundedScan(deadTasks.pageSql(true, false), Map.of("queue", queue));
			assertBoundedScan(deadTasks.pageSql(true, true), with(cursor(deep), "queue", queue));
			assertBoundedScan(deadTasks.pageSql(false, true), cursor(deep));
		}
		assertBoundedScan(deadTasks.pageSql(false, false), Map.of());
	}

	@Test
	void pagesFollowEachOtherWithoutGapOrOverlap() {
		List<DeadTask> first = deadTasks.page("q1", null, null, PAGE);
		DeadTask last = first.get(PAGE - 1);
		List<DeadTask> second = deadTasks.page("q1", last.failedAt(), last.id(), PAGE);
		List<UUID> expected = jdbc.sql("SELECT id FROM taskqueue_dead_task WHERE queue = 'q1' "
				+ "ORDER BY failed_at DESC, id DESC LIMIT :n").param("n", 2 * PAGE).query(UUID.class).list();
		assertThat(first).extracting(DeadTask::id).isEqualTo(expected.subList(0, PAGE));
		assertThat(second).extracting(DeadTask::id).isEqualTo(expected.subList(PAGE, 2 * PAGE));
		assertThat(second.get(0).errorLine()).startsWith("java.lang.IllegalStateException: boom ");
		assertThat(second.get(0).payload()).startsWith("{\"n\": ");
	}

	private static void assertBoundedScan(String sql, Map<String, Object> params) {
		String plan = String.join("\n", jdbc.sql("EXPLAIN (ANALYZE, TIMING OFF) " + sql)
			.params(with(params, "limit", PAGE + 1))
			.query(String.class)
			.list());
		assertThat(plan).doesNotContain("Seq Scan");
		Matcher scan = INDEX_SCAN.matcher(plan);
		assertThat(scan.find()).as(plan).isTrue();
		Matcher removed = REMOVED_BY_FILTER.matcher(plan);
		int read = Integer.parseInt(scan.group(2)) + (removed.find() ? Integer.parseInt(removed.group(1)) : 0);
		assertThat(read).as(plan).isLessThanOrEqualTo(MAX_ROWS_READ);
	}

	private static Map<String, Object> cursor(DeadTask after) {
		return Map.of("failedAt", OffsetDateTime.ofInstant(after.failedAt(), ZoneOffset.UTC), "id", after.id());
	}

	private static Map<String, Object> with(Map<String, Object> params, String name, Object value) {
		Map<String, Object> all = new HashMap<>(params);
		all.put(name, value);
		return all;
	}

}
