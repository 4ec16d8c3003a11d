package dev.taskqueue.internal.jdbc;

import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bulk retry and delete of the dead letters that match a filter take exactly those, in chunks, and leave every
 * other dead letter alone: 5,000 dead letters in five queues, a fifth of them with a timeout, failed one second
 * apart over the last hours, and ten that fail after the bulk action began (in the future of its clock).
 */
class DeadTaskBulkTests {

	private static final int CHUNK = 100;

	private DeadTaskRepository deadTasks;

	private JdbcClient jdbc;

	private Instant now;

	private String url;

	@BeforeEach
	void fill() {
		this.url = TestDatabase.createDatabase();
		DataSource dataSource = new DriverManagerDataSource(this.url);
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		this.deadTasks = new DeadTaskRepository(dataSource, tables);
		this.jdbc = JdbcClient.create(dataSource);
		// i = 1..5000, queue q(i % 5), a Timeout when i % 5 = 1 or i % 25 = 3, failed i seconds ago; 10 rows more
		// failed "in a minute".
		this.jdbc.sql("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error)
				SELECT gen_random_uuid(), 'q' || (i % 5), jsonb_build_object('n', i), 0, 3, now() - interval '1 day',
				       now() - i * interval '1 second',
				       CASE WHEN i % 5 = 1 OR i % 25 = 3 THEN 'java.net.SocketTimeoutException: Read TIMED OUT'
				            ELSE 'java.lang.IllegalStateException: boom' END
				FROM generate_series(1, 5000) i
				UNION ALL
				SELECT gen_random_uuid(), 'q1', '{"later":true}', 0, 3, now(), now() + interval '1 minute',
				       'java.net.SocketTimeoutException: Read TIMED OUT'
				FROM generate_series(1, 10)
				""").update();
		this.now = this.jdbc.sql("SELECT now()").query(OffsetDateTime.class).single().toInstant();
	}

	@Test
	void retriesExactlyTheMatchingDeadLettersInChunks() {
		// q1 with a timeout: i % 5 = 1, all 1,000 of them, in 10 chunks and one empty one; not the 10 of later.
		int retried = this.deadTasks.retryMatching("q1", "timed out", null, null, CHUNK);
		assertThat(retried).isEqualTo(1000);
		assertThat(count("taskqueue_task", "queue = 'q1' AND attempt = 0 AND last_error LIKE '%TIMED OUT'"))
			.isEqualTo(1000);
		assertThat(count("taskqueue_dead_task", "queue = 'q1'")).isEqualTo(10);
		assertThat(count("taskqueue_dead_task", "queue = 'q1' AND failed_at > now()")).isEqualTo(10);
		assertThat(count("taskqueue_dead_task", "true")).isEqualTo(4010);
	}

	@Test
	void takesOnlyWhatFailedBetweenTheTimesGivenInEveryQueue() {
		// The timeouts (q1: i % 5 = 1, q3: i % 25 = 3) that failed between 2,000 and 1,000 seconds ago: i in
		// (1000, 2000], 200 of q1 and 40 of q3.
		Instant from = this.now.minusSeconds(2000);
		Instant before = this.now.minusSeconds(1000);
		String window = "failed_at >= '" + from + "' AND failed_at < '" + before + "'";
		assertThat(count("taskqueue_dead_task", "error LIKE '%TIMED OUT' AND " + window)).isEqualTo(240);
		assertThat(count("taskqueue_dead_task", "queue = 'q3' AND error LIKE '%TIMED OUT' AND " + window))
			.isEqualTo(40);
		assertThat(this.deadTasks.deleteMatching(null, "TIMED out", from, before, 7)).isEqualTo(240);
		// The other timeouts are still there: of q1 800 and the 10 of later, of q3 160.
		assertThat(count("taskqueue_dead_task", "error LIKE '%TIMED OUT'")).isEqualTo(800 + 10 + 160);
		assertThat(count("taskqueue_dead_task", "error LIKE '%TIMED OUT' AND " + window)).isZero();
		assertThat(count("taskqueue_dead_task", "true")).isEqualTo(5010 - 240);
		assertThat(count("taskqueue_task", "true")).isZero();
	}

	@Test
	void everyDeadLetterThatFailedBeforeTheActionWithoutAFilter() {
		assertThat(this.deadTasks.deleteMatching(null, null, null, null, 1000)).isEqualTo(5000);
		List<String> left = this.jdbc.sql("SELECT payload::text FROM taskqueue_dead_task").query(String.class).list();
		assertThat(left).hasSize(10).containsOnly("{\"later\": true}");
	}

	@Test
	void aChunkLeavesTheRowsAnotherTransactionHoldsToIt() {
		UUID held = this.jdbc.sql("SELECT id FROM taskqueue_dead_task WHERE queue = 'q2' LIMIT 1")
			.query(UUID.class)
			.single();
		try (var connection = new DriverManagerDataSource(this.url).getConnection()) {
			connection.setAutoCommit(false);
			try (var lock = connection.prepareStatement("SELECT 1 FROM taskqueue_dead_task WHERE id = ? FOR UPDATE")) {
				lock.setObject(1, held);
				lock.executeQuery();
			}
			assertThat(this.deadTasks.retryMatching("q2", null, null, null, CHUNK)).isEqualTo(999);
			connection.rollback();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		assertThat(count("taskqueue_dead_task", "queue = 'q2'")).isEqualTo(1);
	}

	private long count(String table, String where) {
		return this.jdbc.sql("SELECT count(*) FROM " + table + " WHERE " + where).query(Long.class).single();
	}

}
