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
	 * The exactly-once loop's one statement: the next ready task in the same order and on the same index as
	 * TaskRepository's claim (bucket 0: the baselines drain queues of one bucket, and the ready index starts with
	 * (queue, bucket)), locked and deleted, with what the handler needs.
	 */
	private static final String DELETE_NEXT = """
			DELETE FROM %1$s WHERE id = (
			    SELECT id FROM %1$s
			    WHERE queue = ? AND bucket = 0 AND claimed_by IS NULL AND run_at <= now()
			    ORDER BY priority DESC, run_at, id
			    LIMIT 1
			    FOR UPDATE SKIP LOCKED)
			RETURNING id, payload::text AS payload
			""";

	/**
	 * The batch loop's claim: mark up to {@code limit} ready tasks (same order and index) with the loop's session,
	 * returning what the handlers need.
	 */
	private static final String CLAIM_BATCH = """
			UPDATE %1$s t SET claimed_by = ?
			FROM (
			    SELECT id FROM %1$s
			    WHERE queue = ? AND bucket = 0 AND claimed_by IS NULL AND run_at <= now()
			    ORDER BY priority DESC, run_at, id
			    LIMIT ?
			    FOR UPDATE SKIP LOCKED) ready
			WHERE t.id = ready.id
			RETURNING t.id, t.payload::text AS payload
			""";

	/** The batch loop's completion: its claimed tasks, by id. */
	private static final String DELETE_BATCH = "DELETE FROM %s WHERE id = ANY(?)";

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
							case DELETE_RETURNING -> deleteReturning(connection, queue, budget);
							case CLAIM_THEN_DELETE -> (shape.batch() == 1) ? claimThenDelete(connection, queue, budget)
									: claimBatchThenDelete(connection, shape.batch(), queue, budget);
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
	 * run) deletes them with one {@code DELETE … WHERE id = ANY(?)} and commits.
	 */
	private long claimBatchThenDelete(Connection connection, int batchSize, String queue, AtomicLong budget)
			throws SQLException {
		UUID session = UUID.randomUUID();
		try (PreparedStatement claim = connection.prepareStatement(CLAIM_BATCH.formatted(this.table));
				PreparedStatement delete = connection.prepareStatement(DELETE_BATCH.formatted(this.table))) {
			claim.setObject(1, session);
			claim.setString(2, queue);
			long done = 0;
			while (true) {
				long wanted = budget.getAndUpdate((left) -> left - Math.min(left, batchSize));
				int limit = (int) Math.min(wanted, batchSize);
				if (limit == 0) {
					return done;
				}
				claim.setInt(3, limit);
				List<UUID> claimed = new ArrayList<>(limit);
				try (ResultSet rows = claim.executeQuery()) {
					while (rows.next()) {
						claimed.add(rows.getObject(1, UUID.class));
						rows.getString(2);
					}
				}
				connection.commit();
				budget.addAndGet(limit - claimed.size());
				if (claimed.isEmpty()) {
					return done; // the rest is claimed by other threads
				}
				delete.setArray(1, connection.createArrayOf("uuid", claimed.toArray()));
				done += delete.executeUpdate();
				connection.commit();
			}
		}
	}

	/**
	 * The weaker reference: claims one task as TaskRepository does and commits, then deletes it fenced by its claim
	 * and commits.
	 */
	private long claimThenDelete(Connection connection, String queue, AtomicLong budget) throws SQLException {
		UUID session = UUID.randomUUID();
		try (PreparedStatement claim = connection.prepareStatement(Baseline.CLAIM.formatted(this.table));
				PreparedStatement complete = connection.prepareStatement(COMPLETE_ONE.formatted(this.table))) {
			long done = 0;
			while (budget.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
				List<ClaimedRow> claimed = claim(claim, queue, 1, session);
				connection.commit();
				if (claimed.isEmpty()) {
					budget.incrementAndGet();
					return done; // the rest is claimed by other threads
				}
				complete.setObject(1, claimed.get(0).id());
				complete.setObject(2, session);
				complete.setInt(3, claimed.get(0).attempt());
				done += complete.executeUpdate();
				connection.commit();
			}
			return done;
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
