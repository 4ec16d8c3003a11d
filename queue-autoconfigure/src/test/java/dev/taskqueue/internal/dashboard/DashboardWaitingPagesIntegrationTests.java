package dev.taskqueue.internal.dashboard;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's pages of ready and scheduled tasks show them in claim order, page after page, and read only the
 * index ranges they show: checked on the plans PostgreSQL runs with 200,000 waiting tasks of one queue in four
 * priorities, 160,000 of them ready. A scheduled page that read the ready tasks of its priority first (as PostgreSQL
 * before 18 did when "run_at > now()" stood beside the cursor's row comparison) reads tens of thousands of rows.
 */
class DashboardWaitingPagesIntegrationTests {

	private static final int LIMIT = 50;

	private static final int MAX_ROWS_READ = 2_000;

	private static final int MAX_PAGES = 500;

	private static DashboardQueries queries;

	private static JdbcClient jdbc;

	@BeforeAll
	static void fill() {
		DataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		queries = new DashboardQueries(dataSource, tables,
				new TransactionTemplate(new DataSourceTransactionManager(dataSource)));
		jdbc = JdbcClient.create(dataSource);
		// One in five is due in the next days (an hour from now at the earliest, so that none falls due while the tests
		// read), the others were due in the last hours; four priorities.
		jdbc.sql("""
				INSERT INTO taskqueue_task (id, queue, payload, priority, run_at)
				SELECT gen_random_uuid(), 'big', '{}', i % 4,
				       CASE WHEN i % 20 < 4 THEN now() + interval '1 hour' + i * interval '1 second'
				            ELSE now() - interval '1 day' + i * interval '100 milliseconds' END
				FROM generate_series(1, 200000) i
				""").update();
		jdbc.sql("ANALYZE taskqueue_task").update();
	}

	@Test
	void scheduledPagesShowTheTasksDueLaterInClaimOrder() {
		List<UUID> expected = jdbc.sql("""
				SELECT id FROM taskqueue_task WHERE run_at > now() ORDER BY priority DESC, run_at, id LIMIT 150
				""").query(UUID.class).list();
		assertThat(pages(true, 3)).isEqualTo(expected);
	}

	@Test
	void readyPagesShowTheDueTasksInClaimOrder() {
		List<UUID> expected = jdbc.sql("""
				SELECT id FROM taskqueue_task WHERE run_at <= now() ORDER BY priority DESC, run_at, id LIMIT 150
				""").query(UUID.class).list();
		assertThat(pages(false, 3)).isEqualTo(expected);
	}

	@Test
	void aScheduledCursorThatTimeHasPassedStartsAtNow() {
		Keyset passed = new Keyset(3, TaskView.micros(Instant.now().minusSeconds(3600)), new UUID(0, 0));
		List<TaskView> page = queries.scheduled("big", passed, LIMIT);
		assertThat(page).hasSize(LIMIT).allSatisfy((task) -> assertThat(task.runAt()).isAfter(Instant.now()));
		assertThat(page.get(0).priority()).isEqualTo(3);
	}

	@Test
	void everyPageReadsTheRangeItShowsOnly() {
		TaskView lastScheduled = queries.scheduled("big", null, LIMIT).get(LIMIT - 1);
		TaskView lastReady = queries.ready("big", null, LIMIT).get(LIMIT - 1);
		Keyset[] cursors = { null, new Keyset(lastScheduled.priority(), TaskView.micros(lastScheduled.runAt()),
				lastScheduled.id()), new Keyset(lastReady.priority(), TaskView.micros(lastReady.runAt()), lastReady.id()) };
		for (boolean scheduled : new boolean[] { true, false }) {
			for (Keyset cursor : cursors) {
				ExplainAnalyze explained = ExplainAnalyze.run(jdbc, queries.waitingStatement(scheduled),
						DashboardQueries.waitingParams("big", cursor, LIMIT));
				String what = (scheduled ? "scheduled" : "ready") + " after " + cursor + ":\n" + explained.plan;
				assertThat(explained.plan).as(what).doesNotContain("Seq Scan");
				assertThat(explained.rowsRead()).as(what).isPositive().isLessThanOrEqualTo(MAX_ROWS_READ);
				assertThat(explained.pages()).as(what).isPositive().isLessThanOrEqualTo(MAX_PAGES);
			}
		}
	}

	private static List<UUID> pages(boolean scheduled, int count) {
		List<UUID> ids = new ArrayList<>();
		Keyset after = null;
		for (int i = 0; i < count; i++) {
			List<TaskView> page = scheduled ? queries.scheduled("big", after, LIMIT) : queries.ready("big", after, LIMIT);
			assertThat(page).hasSize(LIMIT);
			page.forEach((task) -> ids.add(task.id()));
			TaskView last = page.get(LIMIT - 1);
			after = new Keyset(last.priority(), TaskView.micros(last.runAt()), last.id());
		}
		return ids;
	}

}
