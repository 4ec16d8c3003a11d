package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The raw-SQL inserts of W4 and the statements the raw drains share: plain JDBC and no Spring, on TaskQueue's own
 * tables, with the statements a queue of the same design needs at least.
 */
final class Baseline {

	/**
	 * TaskRepository's claim of bucket 0, without its wrap-around to the other buckets (the baselines' queues have
	 * one) and its session check, returning only what a handler needs.
	 */
	static final String CLAIM = """
			WITH ready AS MATERIALIZED (
			    SELECT id FROM %1$s
			    WHERE queue = ? AND bucket = 0 AND claimed_by IS NULL AND run_at <= now()
			    ORDER BY priority DESC, run_at, id
			    LIMIT ?
			    FOR UPDATE SKIP LOCKED)
			UPDATE %1$s t SET claimed_by = ?, claimed_at = now(), attempt = t.attempt + 1
			FROM ready WHERE t.id = ready.id
			RETURNING t.id, t.attempt, t.payload::text AS payload
			""";

	static final String COMPLETE_ALL = "DELETE FROM %s WHERE id = ANY(?) AND claimed_by = ?";

	private static final String INSERT = "INSERT INTO %s (id, queue, payload, priority, run_at) VALUES ";

	private static final String INSERT_ROW = "(?, ?, CAST(? AS jsonb), ?, now())";

	static final String INSERT_ONE = INSERT + INSERT_ROW;

	/** INSERT_ONE with the wake-up TaskQueue sends with every enqueue, in the same statement. */
	private static final String INSERT_ONE_NOTIFYING = "WITH inserted AS (" + INSERT_ONE + ") SELECT pg_notify(?, ?)";

	private static final String NOTIFY_CHANNEL = "taskqueue_bench_raw_enqueue";

	private static final String INSERT_UNNEST = """
			INSERT INTO %s (id, queue, payload, priority, run_at)
			SELECT t.id, t.queue, CAST(t.payload AS jsonb), t.priority, now()
			FROM unnest(?::uuid[], ?::text[], ?::text[], ?::int4[]) AS t(id, queue, payload, priority)
			""";

	private static final AtomicLong idCounter = new AtomicLong();

	private final String url;

	private final String table;

	Baseline(String url, String table) {
		this.url = url;
		this.table = table;
	}

	/**
	 * Inserts {@code tasks} tasks with {@code INSERT … VALUES} statements of {@code batchSize} rows, each in a
	 * transaction of its own (auto-commit), and times it.
	 */
	Timing insert(String queue, int batchSize, int tasks) {
		try (Connection connection = ScratchDatabase.connect(this.url);
				PreparedStatement full = connection.prepareStatement(insertSql(batchSize))) {
			long start = System.nanoTime();
			long startCpu = Timing.cpuNow();
			for (int first = 0; first < tasks; first += batchSize) {
				int rows = Math.min(batchSize, tasks - first);
				if (rows == batchSize) {
					insertRows(full, queue, first, rows);
				}
				else {
					try (PreparedStatement partial = connection.prepareStatement(insertSql(rows))) {
						insertRows(partial, queue, first, rows);
					}
				}
			}
			return Timing.since(start, startCpu);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Raw insert failed: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Inserts {@code tasks} tasks one per transaction (auto-commit), each with a {@code pg_notify} in the same
	 * statement as TaskQueue's {@code enqueue} sends it, and times it.
	 */
	Timing insertNotifying(String queue, int tasks) {
		try (Connection connection = ScratchDatabase.connect(this.url);
				PreparedStatement insert = connection
					.prepareStatement(INSERT_ONE_NOTIFYING.formatted(this.table))) {
			long start = System.nanoTime();
			long startCpu = Timing.cpuNow();
			for (int seq = 0; seq < tasks; seq++) {
				insert.setObject(1, timeOrderedId());
				insert.setString(2, queue);
				insert.setString(3, BenchTask.json(seq));
				insert.setInt(4, 0);
				insert.setString(5, NOTIFY_CHANNEL);
				insert.setString(6, queue);
				insert.executeQuery().close();
			}
			return Timing.since(start, startCpu);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Raw insert failed: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Inserts {@code tasks} tasks with one {@code INSERT … SELECT … FROM unnest(…)} of arrays per {@code batchSize}
	 * tasks, each in a transaction of its own, and times it.
	 */
	Timing insertUnnest(String queue, int batchSize, int tasks) {
		try (Connection connection = ScratchDatabase.connect(this.url);
				PreparedStatement insert = connection.prepareStatement(INSERT_UNNEST.formatted(this.table))) {
			long start = System.nanoTime();
			long startCpu = Timing.cpuNow();
			for (int first = 0; first < tasks; first += batchSize) {
				int rows = Math.min(batchSize, tasks - first);
				UUID[] ids = new UUID[rows];
				String[] queues = new String[rows];
				String[] payloads = new String[rows];
				Integer[] priorities = new Integer[rows];
				for (int i = 0; i < rows; i++) {
					ids[i] = timeOrderedId();
					queues[i] = queue;
					payloads[i] = BenchTask.json(first + i);
					priorities[i] = 0;
				}
				insert.setArray(1, connection.createArrayOf("uuid", ids));
				insert.setArray(2, connection.createArrayOf("text", queues));
				insert.setArray(3, connection.createArrayOf("text", payloads));
				insert.setArray(4, connection.createArrayOf("int4", priorities));
				insert.executeUpdate();
			}
			return Timing.since(start, startCpu);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Raw insert failed: " + ex.getMessage(), ex);
		}
	}

	private String insertSql(int rows) {
		return INSERT.formatted(this.table)
				+ IntStream.range(0, rows).mapToObj((i) -> INSERT_ROW).collect(Collectors.joining(", "));
	}

	static void insertRows(PreparedStatement insert, String queue, int first, int rows) throws SQLException {
		int parameter = 1;
		for (int seq = first; seq < first + rows; seq++) {
			insert.setObject(parameter++, timeOrderedId());
			insert.setString(parameter++, queue);
			insert.setString(parameter++, BenchTask.json(seq));
			insert.setInt(parameter++, 0);
		}
		insert.executeUpdate();
	}

	/** A UUID version 7 like TaskQueue's, whose id generator is not public. */
	private static UUID timeOrderedId() {
		long high = (System.currentTimeMillis() << 16) | 0x7000L | (idCounter.getAndIncrement() & 0xFFF);
		long low = (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
		return new UUID(high, low);
	}

}
