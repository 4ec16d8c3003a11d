package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.QueueLimits.RateWindow;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * What one claim of a rate-limited queue costs with a sliding window against a fixed one, the limit never reached
 * (1,000,000 per second): the limiter's own cost, without the drain around it. One thread, one connection, two
 * queues of one database (one per window, so that each row keeps its own state), claims of 8 from a backlog, each
 * followed by the deletion of what it claimed (untimed), in alternating rounds; only {@code LimitedClaims.claim} is
 * timed: the locking transaction with its four statements. The sliding queue's log is full (about 101 pairs) after
 * its first second. Not part of the build (the name does not end in Tests); run it with
 * {@code ./mvnw -B -o -pl queue-benchmark -am package -Dtest=RateLimitClaimCostMeasurement -Drounds=6
 * -Dsurefire.failIfNoSpecifiedTests=false -DskipITs}.
 */
class RateLimitClaimCostMeasurement {

	private static final int ROUNDS = Integer.getInteger("rounds", 6);

	private static final int CLAIMS = 1_500;

	private static final int SIZE = 8;

	@Test
	void slidingAgainstFixedWindow() {
		String url = TestDatabase.createDatabase();
		SingleConnectionDataSource dataSource = new SingleConnectionDataSource(url, true);
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		UUID session = UUID.randomUUID();
		new SessionRepository(dataSource, tables).register(session, "measurement");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		for (String queue : List.of("fixed", "sliding")) {
			jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, run_at) SELECT gen_random_uuid(), ?, '0', "
					+ "now() - interval '1 minute' FROM generate_series(1, ?)", queue,
					(ROUNDS + 1) * CLAIMS * SIZE + 1_000);
		}
		jdbc.execute("VACUUM ANALYZE taskqueue_task");
		LimitedClaims claims = new TaskRepository(dataSource, tables).limitedClaims();
		Side fixed = new Side("fixed", claims, jdbc, session, RateWindow.FIXED);
		Side sliding = new Side("sliding", claims, jdbc, session, RateWindow.SLIDING);
		fixed.claims(CLAIMS / 2); // warm-up: JIT, plan caches, and a full log
		sliding.claims(CLAIMS / 2);
		double[][] micros = new double[2][ROUNDS];
		List<String> lines = new ArrayList<>();
		for (int round = 0; round < ROUNDS; round++) {
			Side first = (round % 2 == 0) ? fixed : sliding;
			Side second = (first == fixed) ? sliding : fixed;
			for (Side side : List.of(first, second)) {
				micros[(side == fixed) ? 0 : 1][round] = side.claims(CLAIMS);
			}
			lines.add(String.format("round %d: claim of %d, fixed %.1f us, sliding %.1f us (sliding/fixed %.3f)",
					round + 1, SIZE, micros[0][round], micros[1][round], micros[1][round] / micros[0][round]));
		}
		lines.add(String.format("median: fixed %.1f us, sliding %.1f us (sliding/fixed %.3f); sliding log: %s pairs",
				median(micros[0]), median(micros[1]), median(micros[1]) / median(micros[0]),
				jdbc.queryForObject("SELECT cardinality(rate_log_micros) FROM taskqueue_queue WHERE name = 'sliding'",
						Integer.class)));
		lines.forEach((line) -> System.out.println("RATE LIMIT CLAIM COST " + line));
		dataSource.destroy();
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return (sorted.length % 2 == 1) ? sorted[sorted.length / 2]
				: (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
	}

	private record Side(String queue, LimitedClaims claims, JdbcTemplate jdbc, UUID session, RateWindow window) {

		/** Runs {@code count} claims; the mean microseconds of one. */
		double claims(int count) {
			QueueLimits limits = new QueueLimits(0, 1_000_000, Duration.ofSeconds(1), this.window);
			long nanos = 0;
			for (int i = 0; i < count; i++) {
				long start = System.nanoTime();
				List<ClaimedTask> claimed = this.claims.claim(this.queue, this.session, SIZE, limits).claimed();
				nanos += System.nanoTime() - start;
				if (claimed.size() != SIZE) {
					throw new IllegalStateException("claimed " + claimed.size() + " instead of " + SIZE);
				}
				this.jdbc.update("DELETE FROM taskqueue_task WHERE claimed_by = ?", this.session);
			}
			return nanos / 1000.0 / count;
		}

	}

}
