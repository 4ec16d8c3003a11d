package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * What the claim of a queue of one bucket costs since schema version 9 (hash-sharded claims), against the claim of
 * version 8 on version 8's index: one thread, one connection, claims of 10 from a backlog of 160,000 (each followed
 * by the deletion of what it claimed, untimed), and claims from an empty queue (the idle poll), in alternating
 * rounds; both statements on the same plain JDBC (the worker runs either through the same HotStatements), the new
 * one as a queue of one bucket runs it: bucket 0 only (it looks at other buckets at most once a second). Only the
 * claim's round trip is timed. Not part of the build (the name does not end in Tests); run it (-Dexplain=true adds
 * one EXPLAIN ANALYZE of each) with
 * {@code ./mvnw -B -o package -DskipTests -pl queue-benchmark -am
 * && ./mvnw -B -o -pl queue-benchmark test -Dtest=ClaimCostMeasurement -Drounds=6}.
 */
class ClaimCostMeasurement {

	private static final int ROUNDS = Integer.getInteger("rounds", 5);

	private static final int CLAIMS = 1_500;

	private static final int LIMIT = 10;

	// TaskClaims' CLAIM as it was in version 8 (commit 4769e7c), on version 8's index (queue, priority DESC, run_at, id).
	private static final String CLAIM_V8 = """
			WITH ready AS MATERIALIZED (
			    SELECT id FROM taskqueue_task
			    WHERE queue = ? AND claimed_by IS NULL AND run_at <= now()
			      AND EXISTS (SELECT 1 FROM taskqueue_session s WHERE s.id = ?)
			    ORDER BY priority DESC, run_at, id
			    LIMIT ?
			    FOR UPDATE SKIP LOCKED)
			UPDATE taskqueue_task t SET claimed_by = ?, claimed_at = now(), attempt = t.attempt + 1
			WHERE t.id = ANY(ARRAY(SELECT id FROM ready))
			RETURNING t.id, t.queue, t.payload::text AS payload, t.priority, t.attempt, t.enqueued_at, t.run_at,
			          t.claimed_at, t.claimed_by, t.last_error, t.headers::text AS headers, t.ordering_key
			""";

	// TaskClaims' CLAIM of version 9 for bucket 0: what a queue of one bucket runs, on version 9's index.
	private static final String CLAIM_V9 = CLAIM_V8.replace("queue = ? AND", "queue = ? AND bucket = 0 AND")
		.replace("t.ordering_key\n", "t.ordering_key, t.bucket\n");

	private static final String FILL = """
			INSERT INTO taskqueue_task (id, queue, payload, priority, run_at, enqueued_at)
			SELECT (lpad(to_hex(%d + i / 4096), 12, '0') || '7' || lpad(to_hex(i %% 4096), 3, '0')
			        || '8' || lpad(to_hex(i), 15, '0'))::uuid,
			       'cost', jsonb_build_object('seq', i), 0, now() - interval '1 minute', now()
			FROM generate_series(0, %d - 1) AS i
			""";

	@Test
	void claimOfOneBucketAgainstVersion8() throws SQLException {
		Side v8 = new Side("8");
		Side v9 = new Side(null);
		v8.claims(200, true); // warm-up: JIT, plan caches
		v9.claims(200, true);
		List<String> lines = new ArrayList<>();
		double[][] full = new double[2][ROUNDS];
		double[][] empty = new double[2][ROUNDS];
		for (int round = 0; round < ROUNDS; round++) {
			Side first = (round % 2 == 0) ? v8 : v9; // alternate which goes first
			Side second = (first == v8) ? v9 : v8;
			for (Side side : List.of(first, second)) {
				full[(side == v8) ? 0 : 1][round] = side.claims(CLAIMS, true);
			}
			for (Side side : List.of(first, second)) {
				empty[(side == v8) ? 0 : 1][round] = side.emptyClaims(CLAIMS);
			}
			lines.add(String.format("round %d: full claim of %d v8 %.1f us, v9 %.1f us; empty claim v8 %.1f us, v9 %.1f us",
					round + 1, LIMIT, full[0][round], full[1][round], empty[0][round], empty[1][round]));
		}
		lines.add(String.format("median: full claim v8 %.1f us, v9 %.1f us (v9/v8 %.3f); empty claim v8 %.1f us, "
				+ "v9 %.1f us (v9/v8 %.3f)", median(full[0]), median(full[1]), median(full[1]) / median(full[0]),
				median(empty[0]), median(empty[1]), median(empty[1]) / median(empty[0])));
		if (Boolean.getBoolean("explain")) {
			System.out.println("CLAIM COST v8 plan:\n" + v8.explain(CLAIM_V8));
			System.out.println("CLAIM COST v9 plan:\n" + v9.explain(CLAIM_V9));
		}
		lines.add("v8 plans: " + v8.plans());
		lines.add("v9 plans: " + v9.plans());
		lines.forEach((line) -> System.out.println("CLAIM COST " + line));
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return (sorted.length % 2 == 1) ? sorted[sorted.length / 2]
				: (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
	}

	/** One database: at schema version 8 with its claim, or the latest with its claim of bucket 0. */
	private static final class Side {

		private final String target;

		private final Connection connection;

		private final UUID session = UUID.randomUUID();

		Side(String target) throws SQLException {
			this.target = target;
			String url = TestDatabase.createDatabase();
			DriverManagerDataSource dataSource = new DriverManagerDataSource(url);
			if (target != null) {
				Flyway.configure()
					.dataSource(dataSource)
					.locations(TaskQueueSchemaMigrator.LOCATION)
					.table(TaskQueueSchemaMigrator.HISTORY_TABLE)
					.target(target)
					.load()
					.migrate();
			}
			else {
				new TaskQueueSchemaMigrator(dataSource, TaskTables.inSchema(null)).afterPropertiesSet();
			}
			new SessionRepository(dataSource, TaskTables.inSchema(null)).register(this.session, "measurement");
			this.connection = dataSource.getConnection();
			try (Statement statement = this.connection.createStatement()) {
				statement.execute(FILL.formatted(System.currentTimeMillis(), 2 * ROUNDS * CLAIMS * LIMIT + 10_000));
				statement.execute("VACUUM ANALYZE taskqueue_task");
			}
		}

		/** EXPLAIN ANALYZE of one claim of 10, rolled back. */
		String explain(String claim) throws SQLException {
			StringBuilder plan = new StringBuilder();
			this.connection.setAutoCommit(false);
			try (PreparedStatement statement = this.connection.prepareStatement("EXPLAIN (ANALYZE, BUFFERS) " + claim)) {
				statement.setString(1, "cost");
				statement.setObject(2, this.session);
				statement.setInt(3, LIMIT);
				statement.setObject(4, this.session);
				try (ResultSet rows = statement.executeQuery()) {
					while (rows.next()) {
						plan.append(rows.getString(1)).append('\n');
					}
				}
			}
			finally {
				this.connection.rollback();
				this.connection.setAutoCommit(true);
			}
			return plan.toString();
		}

		/** The claim's generic and custom plans so far, as this session's prepared statements count them. */
		String plans() throws SQLException {
			List<String> plans = new ArrayList<>();
			try (Statement statement = this.connection.createStatement();
					ResultSet rows = statement.executeQuery("SELECT generic_plans, custom_plans FROM "
							+ "pg_prepared_statements WHERE statement LIKE '%ready AS MATERIALIZED%'")) {
				while (rows.next()) {
					plans.add("generic " + rows.getLong(1) + ", custom " + rows.getLong(2));
				}
			}
			return plans.toString();
		}

		/** Mean microseconds per claim of {@code count} claims, each followed by the deletion of its tasks. */
		double claims(int count, boolean delete) throws SQLException {
			return run(count, "cost", delete);
		}

		double emptyClaims(int count) throws SQLException {
			return run(count, "empty", false);
		}

		private double run(int count, String queue, boolean delete) throws SQLException {
			long nanos = 0;
			for (int i = 0; i < count; i++) {
				long start = System.nanoTime();
				List<UUID> ids = claim(queue);
				nanos += System.nanoTime() - start;
				if (delete && !ids.isEmpty()) {
					try (PreparedStatement statement = this.connection
						.prepareStatement("DELETE FROM taskqueue_task WHERE id = ANY(?)")) {
						statement.setArray(1, this.connection.createArrayOf("uuid", ids.toArray()));
						statement.executeUpdate();
					}
				}
			}
			return nanos / 1e3 / count;
		}

		private List<UUID> claim(String queue) throws SQLException {
			List<UUID> ids = new ArrayList<>();
			try (PreparedStatement statement = this.connection.prepareStatement(
					(this.target != null) ? CLAIM_V8 : CLAIM_V9)) {
				statement.setString(1, queue);
				statement.setObject(2, this.session);
				statement.setInt(3, LIMIT);
				statement.setObject(4, this.session);
				try (ResultSet rows = statement.executeQuery()) {
					while (rows.next()) { // every column, read as TaskClaims reads them
						ids.add(rows.getObject(1, UUID.class));
						rows.getString(2);
						rows.getString(3);
						rows.getInt(4);
						rows.getInt(5);
						rows.getObject(6, java.time.OffsetDateTime.class);
						rows.getObject(7, java.time.OffsetDateTime.class);
						rows.getObject(8, java.time.OffsetDateTime.class);
						rows.getObject(9, UUID.class);
						rows.getString(10);
						rows.getString(11);
						rows.getString(12);
						if (this.target == null) {
							rows.getInt(13);
						}
					}
				}
			}
			return ids;
		}

	}

}
