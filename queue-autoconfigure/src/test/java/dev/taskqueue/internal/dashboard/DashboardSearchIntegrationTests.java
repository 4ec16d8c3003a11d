package dev.taskqueue.internal.dashboard;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.dashboard.DashboardQueries.Found;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The dashboard's search finds exactly the tasks whose id, unique key, ordering key or batch id is the text, across
 * waiting tasks, dead letters and the history, and reads only index ranges to do it: checked on the plans
 * PostgreSQL runs with 200,000 waiting tasks (20,000 of them with a unique key and 20,000 with an ordering key, in
 * eight queues), 100,000 dead letters and 100,000 completed tasks.
 */
class DashboardSearchIntegrationTests {

	private static final int LIMIT = 100;

	/** What a search may read, all nodes of its plan together: a plan that scans a table reads 100,000 rows. */
	private static final int MAX_ROWS_READ = 2_000;

	private static final int MAX_PAGES = 500;

	private static final UUID BATCH = UUID.fromString("0190a0d0-0000-7000-8000-00000000b001");

	private static final UUID DEAD = UUID.fromString("0190a0d0-0000-7000-8000-00000000d001");

	private static final UUID COMPLETED = UUID.fromString("0190a0d0-0000-7000-8000-00000000c001");

	private static final UUID WAITING = UUID.fromString("0190a0d0-0000-7000-8000-00000000a001");

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
		// 200,000 waiting tasks in eight queues: one in ten has a unique key, one in a hundred a batch of its own.
		jdbc.sql("""
				INSERT INTO taskqueue_task (id, queue, payload, unique_key, batch_id)
				SELECT gen_random_uuid(), 'q' || (i % 8), '{}',
				       CASE WHEN i % 10 = 1 THEN 'u-' || i END, CASE WHEN i % 100 = 7 THEN gen_random_uuid() END
				FROM generate_series(1, 200000) i
				""").update();
		// 4,000 ordering keys of five tasks each: the first is the head, the four others are held behind it.
		jdbc.sql("""
				INSERT INTO taskqueue_task (id, queue, payload, ordering_key, ordering_seq, claimed_by)
				SELECT gen_random_uuid(), 'q' || (i % 4000 % 8), '{}', 'o-' || (i % 4000), i,
				       CASE WHEN i >= 4000 THEN uuid '00000000-0000-0000-0000-000000000000' END
				FROM generate_series(0, 19999) i
				""").update();
		// One key in two queues (a head and two held in q1, a head in q5), and a key of 150 tasks in q3.
		jdbc.sql("""
				INSERT INTO taskqueue_task (id, queue, payload, ordering_key, ordering_seq, claimed_by)
				VALUES (gen_random_uuid(), 'q1', '{}', 'shared', 1, NULL),
				       (gen_random_uuid(), 'q1', '{}', 'shared', 2, uuid '00000000-0000-0000-0000-000000000000'),
				       (gen_random_uuid(), 'q1', '{}', 'shared', 3, uuid '00000000-0000-0000-0000-000000000000'),
				       (gen_random_uuid(), 'q5', '{}', 'shared', 4, NULL)
				""").update();
		jdbc.sql("""
				INSERT INTO taskqueue_task (id, queue, payload, ordering_key, ordering_seq, claimed_by)
				SELECT gen_random_uuid(), 'q3', '{}', 'many', i,
				       CASE WHEN i > 1 THEN uuid '00000000-0000-0000-0000-000000000000' END
				FROM generate_series(1, 150) i
				""").update();
		// A batch with seven waiting tasks (one running, one due tomorrow) and three dead letters.
		jdbc.sql("""
				INSERT INTO taskqueue_task (id, queue, payload, batch_id, run_at, claimed_by, claimed_at)
				SELECT CASE WHEN i = 1 THEN :waiting ELSE gen_random_uuid() END, 'q2', '{}', :batch,
				       now() + CASE WHEN i = 2 THEN interval '1 day' ELSE interval '0' END,
				       CASE WHEN i = 3 THEN gen_random_uuid() END, CASE WHEN i = 3 THEN now() END
				FROM generate_series(1, 7) i
				""").param("waiting", WAITING).param("batch", BATCH).update();
		jdbc.sql("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error,
				                                 batch_id, unique_key, ordering_key)
				SELECT CASE WHEN i = 1 THEN :dead ELSE gen_random_uuid() END, 'q' || (i % 8), '{}', 0, 3,
				       now() - interval '1 day', now() - i * interval '1 second', 'boom',
				       CASE WHEN i <= 3 THEN :batch WHEN i % 10 = 0 THEN gen_random_uuid() END,
				       CASE WHEN i % 10 = 2 THEN 'du-' || i END, CASE WHEN i % 10 = 4 THEN 'do-' || (i % 1000) END
				FROM generate_series(1, 100000) i
				""").param("dead", DEAD).param("batch", BATCH).update();
		jdbc.sql("""
				INSERT INTO taskqueue_history (id, queue, payload, priority, attempts, enqueued_at, completed_at,
				                               outcome, unique_key, ordering_key, batch_id)
				SELECT CASE WHEN i = 1 THEN :completed ELSE gen_random_uuid() END, 'q' || (i % 8), '{}', 0, 1,
				       now() - interval '1 day', now() - i * interval '1 second',
				       CASE WHEN i % 7 = 2 THEN 'cancelled' ELSE 'completed' END,
				       CASE WHEN i % 10 = 3 THEN 'hu-' || i END, CASE WHEN i % 10 = 5 THEN 'ho-' || (i % 1000) END,
				       CASE WHEN i <= 2 THEN :batch WHEN i % 10 = 0 THEN gen_random_uuid() END
				FROM generate_series(1, 100000) i
				""").param("completed", COMPLETED).param("batch", BATCH).update();
		// One key everywhere: a waiting task's unique key, a dead letter's unique and ordering keys, a cancelled
		// task's unique key in the history.
		jdbc.sql("INSERT INTO taskqueue_task (id, queue, payload, unique_key) VALUES (gen_random_uuid(), 'q7', '{}', 'all')")
			.update();
		jdbc.sql("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, error, unique_key,
				                                 ordering_key)
				VALUES (gen_random_uuid(), 'q7', '{}', 0, 3, now(), 'boom', 'all', NULL),
				       (gen_random_uuid(), 'q4', '{}', 0, 3, now(), 'boom', NULL, 'all')
				""").update();
		jdbc.sql("""
				INSERT INTO taskqueue_history (id, queue, payload, priority, attempts, enqueued_at, outcome, unique_key)
				VALUES (gen_random_uuid(), 'q7', '{}', 0, 1, now(), 'cancelled', 'all')
				""").update();
		// A unique key that reads as a UUID, the id of a dead letter.
		jdbc.sql("INSERT INTO taskqueue_task (id, queue, payload, unique_key) VALUES (gen_random_uuid(), 'q6', '{}', :key)")
			.param("key", DEAD.toString())
			.update();
		jdbc.sql("ANALYZE").update();
	}

	@Test
	void findsATaskByItsUniqueKey() {
		List<Found> found = queries.search("u-12341", LIMIT);
		assertThat(found).hasSize(1);
		assertThat(found.get(0)).extracting(Found::queue, Found::state, Found::matched, Found::key)
			.containsExactly("q5", "ready", "unique key", "u-12341");
	}

	@Test
	void findsEveryTaskOfAnOrderingKeyTheHeadFirstInEveryQueue() {
		List<Found> key = queries.search("o-17", LIMIT);
		assertThat(key).extracting(Found::state).containsExactly("ready", "held", "held", "held", "held");
		assertThat(key).extracting(Found::queue).containsOnly("q1");
		assertThat(key).extracting(Found::matched).containsOnly("ordering key");
		List<Found> shared = queries.search("shared", LIMIT);
		assertThat(shared).hasSize(4);
		assertThat(shared).extracting(Found::queue).containsExactlyInAnyOrder("q1", "q1", "q1", "q5");
	}

	@Test
	void findsATaskByItsIdWhereverItIs() {
		assertThat(queries.search(WAITING.toString(), LIMIT)).extracting(Found::state, Found::matched)
			.containsExactly(tuple("ready", "id"));
		assertThat(queries.search(COMPLETED.toString(), LIMIT)).extracting(Found::state, Found::matched)
			.containsExactly(tuple("completed", "id"));
		// The dead letter by its id, and the task whose unique key is that text.
		assertThat(queries.search(DEAD.toString(), LIMIT)).extracting(Found::state, Found::matched)
			.containsExactly(tuple("dead", "id"), tuple("ready", "unique key"));
	}

	@Test
	void findsTheWaitingTasksDeadLettersAndHistoryOfABatch() {
		List<Found> found = queries.search(BATCH.toString(), LIMIT);
		assertThat(found).hasSize(12);
		assertThat(found).extracting(Found::matched).containsOnly("batch");
		assertThat(found).extracting(Found::state)
			.containsExactlyInAnyOrder("ready", "ready", "ready", "ready", "ready", "scheduled", "running", "dead",
					"dead", "dead", "completed", "cancelled");
	}

	@Test
	void findsDeadLettersAndTheHistoryByTheKeysTheTasksHad() {
		assertThat(queries.search("du-12342", LIMIT)).extracting(Found::queue, Found::state, Found::matched, Found::key)
			.containsExactly(tuple("q6", "dead", "unique key", "du-12342"));
		assertThat(queries.search("hu-12353", LIMIT)).extracting(Found::queue, Found::state, Found::matched)
			.containsExactly(tuple("q1", "completed", "unique key"));
		assertThat(queries.search("hu-23", LIMIT)).extracting(Found::state).containsExactly("cancelled");
		List<Found> ordering = queries.search("do-4", LIMIT);
		assertThat(ordering).hasSize(100);
		assertThat(ordering).extracting(Found::state, Found::matched).containsOnly(tuple("dead", "ordering key"));
		assertThat(queries.search("ho-5", LIMIT)).hasSize(100).extracting(Found::matched).containsOnly("ordering key");
		// Waiting first, then by what matched.
		assertThat(queries.search("all", LIMIT)).extracting(Found::queue, Found::state, Found::matched)
			.containsExactly(tuple("q7", "ready", "unique key"), tuple("q7", "dead", "unique key"),
					tuple("q7", "cancelled", "unique key"), tuple("q4", "dead", "ordering key"));
	}

	@Test
	void findsNoMoreThanTheLimit() {
		assertThat(queries.search("many", LIMIT)).hasSize(LIMIT);
		assertThat(queries.search("many", 1000)).hasSize(150);
		assertThat(queries.search("nothing-has-this-key", LIMIT)).isEmpty();
	}

	@Test
	void everySearchReadsIndexRangesOnly() {
		for (String text : List.of("u-12341", "o-17", "many", "nothing-has-this-key", "du-12342", "do-4", "ho-5",
				"all", BATCH.toString(),
				DEAD.toString(), COMPLETED.toString())) {
			ExplainAnalyze explained = ExplainAnalyze.run(jdbc, queries.searchStatement(text), params(text));
			String plan = explained.plan;
			assertThat(plan).as(plan).doesNotContain("Seq Scan");
			assertThat(explained.rowsRead()).as(text + ":\n" + plan).isPositive().isLessThanOrEqualTo(MAX_ROWS_READ);
			assertThat(explained.pages()).as(text + ":\n" + plan).isPositive().isLessThanOrEqualTo(MAX_PAGES);
		}
	}

	private static Map<String, Object> params(String text) {
		return text.equals(BATCH.toString()) || text.equals(DEAD.toString()) || text.equals(COMPLETED.toString())
				? Map.of("key", text, "limit", LIMIT, "id", UUID.fromString(text))
				: Map.of("key", text, "limit", LIMIT);
	}

}
