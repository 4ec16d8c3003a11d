package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The raw-SQL drains: plain JDBC with one connection per thread and no Spring, on TaskQueue's own tables, in one of
 * the {@link RawShape shapes}.
 */
final class RawDrain {

	/**
	 * One ready task, locked for the rest of the transaction; the same order and index as TaskRepository's claim
	 * (bucket 0: the baselines drain queues of one bucket, and the ready index starts with (queue, bucket)).
	 */
	private static final String LOCK_ONE = """
			SELECT id, payload::text AS payload FROM %s
			WHERE queue = ? AND bucket = 0 AND claimed_by IS NULL AND run_at <= now()
			ORDER BY priority DESC, run_at, id
			LIMIT 1
			FOR UPDATE SKIP LOCKED
			""";

	private static final String DELETE_ONE = "DELETE FROM %s WHERE id = ?";

	/** The same lock as {@link #LOCK_ONE} and the delete, in one statement. */
	private static final String DELETE_NEXT = """
			DELETE FROM %1$s WHERE id = (
			    SELECT id FROM %1$s
			    WHERE queue = ? AND bucket = 0 AND claimed_by IS NULL AND run_at <= now()
			    ORDER BY priority DESC, run_at, id
			    LIMIT 1
			    FOR UPDATE SKIP LOCKED)
			RETURNING id, payload::text AS payload
			""";

	private static final String COMPLETE_ONE = "DELETE FROM %s WHERE id = ? AND claimed_by = ? AND attempt = ?";

	private final String url;

	private final String table;

	RawDrain(String url, String table) {
		this.url = url;
		this.table = table;
	}

	/** Drains {@code tasks} tasks of {@code queue} on {@code threads} connections in {@code shape}, and times it. */
	Timing drain(RawShape shape, String queue, int threads, int tasks) {
		AtomicLong budget = new AtomicLong(tasks);
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch go = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<Long>> workers = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				workers.add(executor.submit(() -> {
					try (Connection connection = ScratchDatabase.connect(this.url)) {
						connection.setAutoCommit(false);
						ready.countDown();
						go.await();
						return switch (shape.kind()) {
							case LOCK_THEN_DELETE -> lockAndDelete(connection, queue, budget);
							case DELETE_RETURNING -> deleteReturning(connection, queue, budget);
							case CLAIM_THEN_DELETE -> claimThenDelete(connection, shape.batch(), queue, budget);
						};
					}
				}));
			}
			ready.await();
			long start = System.nanoTime();
			long startCpu = Timing.otherThreadsCpuNow();
			go.countDown();
			long done = 0;
			for (Future<Long> worker : workers) {
				done += worker.get();
			}
			Timing timing = Timing.sinceOnOtherThreads(start, startCpu);
			if (done != tasks) {
				throw new IllegalStateException(shape.name() + " completed " + done + " tasks instead of " + tasks);
			}
			return timing;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during " + shape.name(), ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(shape.name() + " failed: " + ex.getCause().getMessage(), ex.getCause());
		}
		finally {
			executor.shutdownNow();
		}
	}

	/** One task per transaction: lock one row, (the handler would run here), delete it, commit. */
	private long lockAndDelete(Connection connection, String queue, AtomicLong budget) throws SQLException {
		try (PreparedStatement lock = connection.prepareStatement(LOCK_ONE.formatted(this.table));
				PreparedStatement delete = connection.prepareStatement(DELETE_ONE.formatted(this.table))) {
			lock.setString(1, queue);
			long done = 0;
			while (budget.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
				UUID id = null;
				try (ResultSet row = lock.executeQuery()) {
					if (row.next()) {
						id = row.getObject("id", UUID.class);
						row.getString("payload");
					}
				}
				if (id == null) {
					connection.commit();
					budget.incrementAndGet();
					return done; // the rest is locked by other threads
				}
				delete.setObject(1, id);
				done += delete.executeUpdate();
				connection.commit();
			}
			return done;
		}
	}

	/** One task per transaction in one statement: delete the next row, (the handler would run here), commit. */
	private long deleteReturning(Connection connection, String queue, AtomicLong budget) throws SQLException {
		try (PreparedStatement delete = connection.prepareStatement(DELETE_NEXT.formatted(this.table))) {
			delete.setString(1, queue);
			long done = 0;
			while (budget.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
				boolean deleted;
				try (ResultSet row = delete.executeQuery()) {
					deleted = row.next();
					if (deleted) {
						row.getString("payload");
					}
				}
				connection.commit();
				if (!deleted) {
					budget.incrementAndGet();
					return done; // the rest is locked by other threads
				}
				done++;
			}
			return done;
		}
	}

	/**
	 * Claims up to {@code batchSize} tasks (marking them claimed) and commits, then (after the handlers would have
	 * run) deletes them, by id, claim and attempt for one, else with one {@code DELETE … WHERE id = ANY(?)}, and
	 * commits.
	 */
	private long claimThenDelete(Connection connection, int batchSize, String queue, AtomicLong budget)
			throws SQLException {
		UUID session = UUID.randomUUID();
		try (PreparedStatement claim = connection.prepareStatement(Baseline.CLAIM.formatted(this.table));
				PreparedStatement complete = connection.prepareStatement(
						((batchSize == 1) ? COMPLETE_ONE : Baseline.COMPLETE_ALL).formatted(this.table))) {
			long done = 0;
			while (true) {
				long wanted = budget.getAndUpdate((left) -> left - Math.min(left, batchSize));
				int limit = (int) Math.min(wanted, batchSize);
				if (limit == 0) {
					return done;
				}
				List<ClaimedRow> claimed = claim(claim, queue, limit, session);
				connection.commit();
				budget.addAndGet(limit - claimed.size());
				if (claimed.isEmpty()) {
					return done; // the rest is claimed by other threads
				}
				if (batchSize == 1) {
					complete.setObject(1, claimed.get(0).id());
					complete.setObject(2, session);
					complete.setInt(3, claimed.get(0).attempt());
				}
				else {
					complete.setArray(1, connection.createArrayOf("uuid",
							claimed.stream().map(ClaimedRow::id).toArray()));
					complete.setObject(2, session);
				}
				done += complete.executeUpdate();
				connection.commit();
			}
		}
	}

	private static List<ClaimedRow> claim(PreparedStatement claim, String queue, int limit, UUID session)
			throws SQLException {
		claim.setString(1, queue);
		claim.setInt(2, limit);
		claim.setObject(3, session);
		List<ClaimedRow> claimed = new ArrayList<>(limit);
		try (ResultSet rows = claim.executeQuery()) {
			while (rows.next()) {
				claimed.add(new ClaimedRow(rows.getObject("id", UUID.class), rows.getInt("attempt"),
						rows.getString("payload")));
			}
		}
		return claimed;
	}

	private record ClaimedRow(UUID id, int attempt, String payload) {
	}

}
