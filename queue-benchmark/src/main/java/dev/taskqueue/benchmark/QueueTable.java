package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The harness's own look at the task table, on a connection of its own: setting up a backlog, seeing when a queue
 * is empty, and its size and dead tuples. None of this is measured.
 */
final class QueueTable implements AutoCloseable {

	// Time-ordered ids like TaskQueue's (UUID version 7: a millisecond clock that ticks every 4,096 tasks, then a
	// counter), so the primary key and the claim order grow as they do when tasks are enqueued one after another.
	private static final String FILL = """
			INSERT INTO %s (id, queue, payload, priority, run_at, enqueued_at)
			SELECT (lpad(to_hex(? + i / 4096), 12, '0') || '7' || lpad(to_hex(i %% 4096), 3, '0')
			        || '8' || lpad(to_hex(i), 15, '0'))::uuid,
			       ?, jsonb_build_object('seq', i), 0, now(), now()
			FROM generate_series(0, ? - 1) AS i
			""";

	private static final String ANY_WAITING = "SELECT EXISTS (SELECT 1 FROM %s WHERE queue = ?)";

	private static final String COUNT = "SELECT count(*) FROM %s WHERE queue = ?";

	private static final String STATS = """
			SELECT n_live_tup, n_dead_tup, pg_total_relation_size(relid) AS bytes, autovacuum_count
			FROM pg_stat_user_tables WHERE relid = ?::regclass
			""";

	private final Connection connection;

	private final String table;

	QueueTable(ScratchDatabase database, String table) {
		this.connection = database.connect();
		this.table = table;
	}

	/** Inserts {@code count} ready tasks with one {@code INSERT … SELECT generate_series}, then vacuums and analyzes. */
	void fill(String queue, int count) {
		try (PreparedStatement insert = this.connection.prepareStatement(FILL.formatted(this.table))) {
			insert.setLong(1, System.currentTimeMillis());
			insert.setString(2, queue);
			insert.setInt(3, count);
			insert.executeUpdate();
		}
		catch (SQLException ex) {
			throw failed("fill " + this.table, ex);
		}
		execute("VACUUM ANALYZE " + this.table);
	}

	void truncate() {
		execute("TRUNCATE " + this.table);
	}

	/**
	 * Waits until no task of {@code queue} is left in the table and returns the {@link System#nanoTime()} at which
	 * that was seen.
	 */
	long awaitEmpty(String queue) {
		long deadline = System.nanoTime() + Probe.STALL_TIMEOUT.toNanos();
		try (PreparedStatement anyWaiting = this.connection.prepareStatement(ANY_WAITING.formatted(this.table))) {
			anyWaiting.setString(1, queue);
			while (true) {
				try (ResultSet result = anyWaiting.executeQuery()) {
					result.next();
					if (!result.getBoolean(1)) {
						return System.nanoTime();
					}
				}
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException(count(queue) + " tasks of queue " + queue + " are still in "
							+ this.table + " " + Probe.STALL_TIMEOUT.toSeconds() + " s after all handlers ran");
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
			}
		}
		catch (SQLException ex) {
			throw failed("read " + this.table, ex);
		}
	}

	/** How many tasks of {@code queue} are in the table, waiting or running. */
	long count(String queue) {
		try (PreparedStatement count = this.connection.prepareStatement(COUNT.formatted(this.table))) {
			count.setString(1, queue);
			try (ResultSet result = count.executeQuery()) {
				result.next();
				return result.getLong(1);
			}
		}
		catch (SQLException ex) {
			throw failed("count the tasks in " + this.table, ex);
		}
	}

	/** Live and dead tuples (as the statistics collector last saw them) and the size with indexes and TOAST. */
	TableStats stats() {
		try (PreparedStatement stats = this.connection.prepareStatement(STATS)) {
			stats.setString(1, this.table);
			try (ResultSet result = stats.executeQuery()) {
				result.next();
				return new TableStats(result.getLong("n_live_tup"), result.getLong("n_dead_tup"),
						result.getLong("bytes"), result.getLong("autovacuum_count"));
			}
		}
		catch (SQLException ex) {
			throw failed("read the statistics of " + this.table, ex);
		}
	}

	@Override
	public void close() {
		try {
			this.connection.close();
		}
		catch (SQLException ex) {
			// nothing to keep
		}
	}

	private void execute(String sql) {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw failed("run " + sql, ex);
		}
	}

	private static IllegalStateException failed(String what, SQLException ex) {
		return new IllegalStateException("Could not " + what + ": " + ex.getMessage(), ex);
	}

	/**
	 * The task table's statistics at one moment.
	 *
	 * @param live live tuples
	 * @param dead dead tuples, not yet vacuumed
	 * @param bytes size with indexes and TOAST
	 * @param autovacuums how many times autovacuum has processed it
	 */
	record TableStats(long live, long dead, long bytes, long autovacuums) {
	}

}
