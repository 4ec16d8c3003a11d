package dev.taskqueue.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bulk retry and delete of the waiting tasks that match a filter take exactly those, in chunks of
 * {@link TaskQueueOperations#BULK_CHUNK}, and never a running one: in queue {@code w}, 2,490 tasks waiting to be
 * retried after a timeout plus 10 held behind their ordering key with one (2,500 that match), 300 that failed
 * otherwise, 200 that never failed; 5 running tasks with a timeout; 200 timeouts of another queue; and 10 timeouts
 * enqueued after the bulk action began (in the future of its clock). Task i (of the 2,490) last failed i seconds ago
 * (its attempt log's last entry ended then), was enqueued a day ago, and is due in an hour; the others that failed
 * did so an hour ago.
 */
class WaitingTaskBulkIntegrationTests {

	private static final int CHUNK = TaskQueueOperations.BULK_CHUNK;

	private static final String TIMEOUT = "java.net.SocketTimeoutException: Read TIMED OUT";

	private static final UUID SESSION = UUID.randomUUID();

	private QueueRepository queues;

	private JdbcClient jdbc;

	private Instant now;

	private String url;

	@BeforeEach
	void fill() {
		this.url = TestDatabase.createDatabase();
		DataSource dataSource = new DriverManagerDataSource(this.url);
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		this.queues = new QueueRepository(dataSource, tables);
		this.jdbc = JdbcClient.create(dataSource);
		// An attempt log (V19) of one failed attempt that ended at the time given, as the failure paths write it.
		this.jdbc.sql("""
				CREATE FUNCTION failed_at(ended timestamptz) RETURNS jsonb LANGUAGE sql AS $$
				    SELECT jsonb_build_array(jsonb_build_object('attempt', 1, 'started', ended - interval '1 second',
				        'ended', ended, 'instance', 'test', 'outcome', 'timed out', 'error', 'Read TIMED OUT'))
				$$""").update();
		this.jdbc.sql("""
				INSERT INTO taskqueue_task (id, queue, payload, run_at, enqueued_at, attempt, last_error, claimed_by,
				                            claimed_at, ordering_key, ordering_seq, attempt_log)
				SELECT gen_random_uuid(), 'w', jsonb_build_object('n', i), now() + interval '1 hour',
				       now() - interval '1 day', 2, :timeout, CAST(NULL AS uuid), CAST(NULL AS timestamptz),
				       CAST(NULL AS text), CAST(NULL AS bigint), failed_at(now() - i * interval '1 second')
				FROM generate_series(1, 2490) i
				UNION ALL
				SELECT gen_random_uuid(), 'w', '{}', now() + interval '1 hour', now() - interval '1 day', 1, :timeout,
				       uuid '00000000-0000-0000-0000-000000000000', NULL, 'key', i,
				       failed_at(now() - interval '1 hour')
				FROM generate_series(1, 10) i
				UNION ALL
				SELECT gen_random_uuid(), 'w', '{}', now() + interval '1 hour', now() - interval '1 day', 2,
				       'java.lang.IllegalStateException: boom', NULL, NULL, NULL, NULL,
				       failed_at(now() - interval '1 hour')
				FROM generate_series(1, 300) i
				UNION ALL
				SELECT gen_random_uuid(), 'w', '{}', now() + interval '1 hour', now() - interval '1 hour', 0, NULL,
				       NULL, NULL, NULL, NULL, NULL
				FROM generate_series(1, 200) i
				UNION ALL
				SELECT gen_random_uuid(), 'w', '{}', now(), now() - interval '1 day', 3, :timeout, :session, now(),
				       NULL, NULL, failed_at(now() - interval '1 hour')
				FROM generate_series(1, 5) i
				UNION ALL
				SELECT gen_random_uuid(), 'other', '{}', now() + interval '1 hour', now() - interval '1 day', 2,
				       :timeout, NULL, NULL, NULL, NULL, failed_at(now() - interval '1 hour')
				FROM generate_series(1, 200) i
				UNION ALL
				SELECT gen_random_uuid(), 'w', '{"later":true}', now() + interval '1 hour', now() + interval '1 minute',
				       2, :timeout, NULL, NULL, NULL, NULL, failed_at(now())
				FROM generate_series(1, 10) i
				""").param("timeout", TIMEOUT).param("session", SESSION).update();
		// The insert's now: task 1 last failed a second before it.
		this.now = this.jdbc
			.sql("SELECT CAST(attempt_log -> 0 ->> 'ended' AS timestamptz) + interval '1 second' FROM taskqueue_task "
					+ "WHERE payload->>'n' = '1'")
			.query(OffsetDateTime.class)
			.single()
			.toInstant();
	}

	@Test
	void retryMakesExactlyTheMatchingWaitingTasksDueInChunksAndKeepsTheirAttempts() {
		QueueRepository.Bulk done = this.queues.retryWaiting("w", "timed out", null, null, CHUNK);
		// 2,500 in chunks of 1,000, 1,000 and 500; the 5 running ones left alone and said so.
		assertThat(done.taken()).isEqualTo(2500);
		assertThat(done.runningSkipped()).isEqualTo(5);
		assertThat(count("queue = 'w' AND last_error LIKE '%TIMED OUT' AND run_at <= now() AND claimed_by IS NULL"))
			.isEqualTo(2490);
		assertThat(count("queue = 'w' AND run_at <= now() AND claimed_by = uuid '00000000-0000-0000-0000-000000000000'"
				+ " AND attempt = 1")).isEqualTo(10);
		// Their attempts are kept.
		assertThat(count("queue = 'w' AND last_error LIKE '%TIMED OUT' AND claimed_by IS NULL AND attempt = 2"))
			.isEqualTo(2490 + 10);
		// Untouched: the other errors, those without one, the other queue, those enqueued later, the running ones.
		assertThat(count("run_at > now() AND (queue = 'other' OR last_error NOT LIKE '%TIMED OUT' "
				+ "OR last_error IS NULL OR enqueued_at > now())")).isEqualTo(300 + 200 + 200 + 10);
		assertThat(count("claimed_by = '" + SESSION + "' AND attempt = 3")).isEqualTo(5);
		assertThat(count("true")).isEqualTo(2500 + 300 + 200 + 5 + 200 + 10);
	}

	@Test
	void deleteTakesOnlyWhatFailedBetweenTheTimesGivenAndNeverARunningTask() {
		// Tasks 1,001 to 2,000 of the 2,490 last failed between 2,000 and 1,000 seconds ago; the held, failed
		// otherwise and running ones an hour ago, which is outside; all were enqueued a day ago.
		Instant from = this.now.minusSeconds(2000);
		Instant before = this.now.minusSeconds(1000);
		QueueRepository.Bulk done = this.queues.deleteWaiting("w", null, from, before, 7);
		assertThat(done.taken()).isEqualTo(1000);
		assertThat(done.runningSkipped()).isZero();
		assertThat(count("queue = 'w' AND payload->>'n' IS NOT NULL")).isEqualTo(1490);
		assertThat(count("(payload->>'n')::int BETWEEN 1001 AND 2000")).isZero();

		// Since two days ago: every waiting task of w that failed, but not the 200 that never did (no failure time),
		// the 5 running ones, or the 10 enqueued after the action began.
		QueueRepository.Bulk failed = this.queues.retryWaiting("w", null, this.now.minus(Duration.ofDays(2)), null,
				CHUNK);
		assertThat(failed.taken()).isEqualTo(1490 + 10 + 300);
		assertThat(failed.runningSkipped()).isEqualTo(5);
		assertThat(count("queue = 'w' AND attempt_log IS NULL AND run_at > now()")).isEqualTo(200);

		// Every waiting task of w, then: all but the 5 running ones, and the 10 enqueued after the action began.
		QueueRepository.Bulk all = this.queues.deleteWaiting("w", null, null, null, CHUNK);
		assertThat(all.taken()).isEqualTo(1490 + 10 + 300 + 200);
		assertThat(all.runningSkipped()).isEqualTo(5);
		assertThat(count("queue = 'w'")).isEqualTo(5 + 10);
		assertThat(count("queue = 'w' AND claimed_by = '" + SESSION + "'")).isEqualTo(5);
		assertThat(count("queue = 'other'")).isEqualTo(200);
	}

	@Test
	void aChunkLeavesTheRowsAClaimHoldsToIt() {
		UUID held = this.jdbc.sql("SELECT id FROM taskqueue_task WHERE queue = 'other' LIMIT 1")
			.query(UUID.class)
			.single();
		try (Connection connection = new DriverManagerDataSource(this.url).getConnection()) {
			connection.setAutoCommit(false);
			try (PreparedStatement lock = connection
				.prepareStatement("SELECT 1 FROM taskqueue_task WHERE id = ? FOR UPDATE")) {
				lock.setObject(1, held);
				lock.executeQuery();
			}
			assertThat(this.queues.deleteWaiting("other", "timed", null, null, 50).taken()).isEqualTo(199);
			connection.rollback();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		assertThat(count("queue = 'other'")).isEqualTo(1);
	}

	@Test
	void theFilterMatchesTheLastErrorIgnoringCase() {
		assertThat(this.queues.retryWaiting("w", "ILLEGALSTATE", null, null, CHUNK).taken()).isEqualTo(300);
		assertThat(this.queues.retryWaiting(null, "TIMED", null, null, CHUNK).taken()).isEqualTo(2500 + 200);
	}

	private long count(String where) {
		return this.jdbc.sql("SELECT count(*) FROM taskqueue_task WHERE " + where).query(Long.class).single();
	}

}
