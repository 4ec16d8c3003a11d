package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * What the bloat figures cost (docs/operations.md#bloat): the one statement of {@link BloatWatch#refresh()} (its
 * package-private {@code BloatRepository}) and the report made of it in memory, which every instance runs once per
 * {@code taskqueue.metrics.refresh-interval} on the gauges' thread, timed on one connection with 1,000,000 waiting
 * tasks, then with 800,000 of them deleted (dead rows; autovacuum off for the table), then with the xmin horizon held
 * by another connection. It reads statistics and catalogs, never the task tables, so the three should cost the same.
 * Nothing of it runs on the claim path: this is its whole cost. Not part of the build (the name does not end in
 * Tests); run it with {@code ./mvnw -B -o package -DskipTests -pl queue-benchmark -am && ./mvnw -B -o -pl
 * queue-benchmark test -Dtest=BloatReadCostMeasurement}.
 */
class BloatReadCostMeasurement {

	private static final int READS = Integer.getInteger("reads", 200);

	@Test
	void readOnAMillionRows() throws Exception {
		String url = TestDatabase.createDatabase();
		try (Connection connection = DriverManager.getConnection(url);
				Statement statement = connection.createStatement()) {
			TaskTables tables = TaskTables.inSchema(null);
			new TaskQueueSchemaMigrator(new DriverManagerDataSource(url), tables).afterPropertiesSet();
			// One connection, as a pooled one is: the time is the statement's, not a connection's set-up.
			BloatWatch bloat = new BloatWatch(new SingleConnectionDataSource(connection, true), tables,
					new BloatWatch.Thresholds(1_000_000, 0.2, Duration.ofMinutes(5)), Duration.ofSeconds(15));
			statement.execute("ALTER TABLE taskqueue_task SET (autovacuum_enabled = false)");
			statement.execute("INSERT INTO taskqueue_task (id, queue, payload) SELECT gen_random_uuid(), "
					+ "'q' || (i % 5), jsonb_build_object('n', i) FROM generate_series(1, 1000000) i");
			print("1,000,000 live rows", bloat);
			statement.execute("DELETE FROM taskqueue_task WHERE queue <> 'q0'");
			print("800,000 dead rows", bloat);
			try (Connection holder = DriverManager.getConnection(url); Statement held = holder.createStatement()) {
				holder.setAutoCommit(false);
				holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
				held.execute("SELECT 1");
				print("horizon held", bloat);
				holder.rollback();
			}
		}
	}

	private static void print(String what, BloatWatch bloat) {
		for (int i = 0; i < 20; i++) {
			bloat.refresh(); // warm-up: plan caches, JIT
		}
		double[] micros = new double[READS];
		for (int i = 0; i < READS; i++) {
			long start = System.nanoTime();
			bloat.refresh();
			micros[i] = (System.nanoTime() - start) / 1000.0;
		}
		Arrays.sort(micros);
		System.out.printf("BLOAT READ %s: median %.0f us, p90 %.0f us, max %.0f us over %d reads (%s)%n", what,
				micros[READS / 2], micros[READS * 9 / 10], micros[READS - 1], READS, bloat.refresh().tables());
	}

}
