package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;

import org.postgresql.PGConnection;

/**
 * The raw-SQL pickup-latency baseline for W2: in plain JDBC, a producer that inserts a task and sends a
 * {@code NOTIFY} in one transaction, and one connection that {@code LISTEN}s, then claims and deletes what is ready.
 */
final class NotifyBaseline {

	private static final String CHANNEL = "taskqueue_bench_raw";

	private static final int CLAIM_LIMIT = 100;

	private final String url;

	private final String table;

	NotifyBaseline(String url, String table) {
		this.url = url;
		this.table = table;
	}

	/**
	 * Enqueues {@code total} tasks at {@code rate} per second; {@code committed} gets when each enqueue committed,
	 * {@code started} when each was claimed ({@link System#nanoTime()}, by task number).
	 */
	void run(String queue, int rate, long[] committed, AtomicLongArray started) {
		int total = committed.length;
		CompletableFuture<Void> listening = new CompletableFuture<>();
		ExecutorService thread = Executors.newSingleThreadExecutor();
		Future<?> consumer = thread.submit(() -> consume(queue, total, started, listening));
		try (Connection connection = ScratchDatabase.connect(this.url);
				PreparedStatement insert = connection.prepareStatement(Baseline.INSERT_ONE.formatted(this.table));
				PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
			listening.get(10, TimeUnit.SECONDS);
			connection.setAutoCommit(false);
			Pacer pacer = new Pacer(rate);
			for (int seq = 0; seq < total; seq++) {
				pacer.awaitTurn(seq);
				Baseline.insertRows(insert, queue, seq, 1);
				notify.setString(1, CHANNEL);
				notify.setString(2, queue);
				notify.executeQuery().close();
				connection.commit();
				committed[seq] = System.nanoTime();
			}
			consumer.get(Probe.STALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		}
		catch (SQLException | ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("The raw LISTEN/NOTIFY baseline failed: " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		finally {
			thread.shutdownNow();
		}
	}

	private void consume(String queue, int total, AtomicLongArray started, CompletableFuture<Void> listening) {
		UUID session = UUID.randomUUID();
		try (Connection connection = ScratchDatabase.connect(this.url);
				PreparedStatement claim = connection.prepareStatement(Baseline.CLAIM.formatted(this.table));
				PreparedStatement complete = connection.prepareStatement(Baseline.COMPLETE_ALL.formatted(this.table))) {
			try (Statement statement = connection.createStatement()) {
				statement.execute("LISTEN " + CHANNEL);
			}
			listening.complete(null);
			PGConnection postgres = connection.unwrap(PGConnection.class);
			for (int picked = 0; picked < total;) {
				postgres.getNotifications(100); // wakes on the first notification, or polls every 100 ms
				for (List<UUID> ids = claim(claim, queue, session, started); !ids.isEmpty();
						ids = claim(claim, queue, session, started)) {
					complete.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
					complete.setObject(2, session);
					complete.executeUpdate();
					picked += ids.size();
				}
			}
		}
		catch (SQLException ex) {
			listening.completeExceptionally(ex);
			throw new IllegalStateException(ex);
		}
	}

	private static List<UUID> claim(PreparedStatement claim, String queue, UUID session, AtomicLongArray started)
			throws SQLException {
		claim.setString(1, queue);
		claim.setInt(2, CLAIM_LIMIT);
		claim.setObject(3, session);
		List<UUID> ids = new ArrayList<>();
		try (ResultSet rows = claim.executeQuery()) {
			long now = System.nanoTime();
			while (rows.next()) {
				String payload = rows.getString("payload"); // {"seq": 123}
				started.set(Integer.parseInt(payload.replaceAll("\\D", "")), now);
				ids.add(rows.getObject("id", UUID.class));
			}
		}
		return ids;
	}

}
