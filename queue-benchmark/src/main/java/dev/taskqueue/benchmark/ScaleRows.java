package dev.taskqueue.benchmark;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * W10's rows, written with {@code COPY ... FROM STDIN} as the library itself would have written them: waiting tasks
 * over eight queues (half of them in {@code scale-0}) in four priorities, a tenth due later (some of those waiting
 * to retry after an error), some with a unique key, some with an ordering key (the first task of each queue and key
 * its head, the others held behind it with the nil UUID as {@code claimed_by}), some in batches, a few running under
 * a session; dead letters with errors and failure times over 13 days (one in 10,000 in a queue of its own), completed tasks in the history over 6 days
 * (both inside the default retention, so that no instance deletes them during the run); the batches' rows and a day
 * of per-minute counts. The tables' secondary indexes are dropped for the load and built again afterwards, from
 * their own definitions ({@code pg_get_indexdef}), as a bulk load does; then {@code VACUUM (ANALYZE)}, which
 * autovacuum would run on its own after so many inserts (better before the measurements than during them).
 */
final class ScaleRows {

	static final int QUEUES = 8;

	/** The queue of one dead letter in 10,000, and of no waiting task. */
	static final String RARE_QUEUE = "scale-rare";

	private static final int[] PRIORITIES = { 0, 1, 5, 10 };

	private static final String NIL = "00000000-0000-0000-0000-000000000000";

	private static final int BATCH_SIZE = 1_000;

	private static final String[] TABLES = { "taskqueue_task", "taskqueue_dead_task", "taskqueue_history" };

	private final int tasks;

	private final int dead;

	private final int history;

	private final Instant base;

	private final UUID session = UUID.randomUUID();

	private final UUID[] batches;

	private final int[] batchTotals;

	private long lastMillis;

	private long counter;

	/** What the pages and the search look for, taken from the rows as they are written. */
	private final Found found = new Found();

	ScaleRows(int tasks, int dead, int history, Instant base) {
		this.tasks = tasks;
		this.dead = dead;
		this.history = history;
		this.base = base;
		this.batches = new UUID[Math.max(1, tasks / 10 / BATCH_SIZE)];
		this.batchTotals = new int[this.batches.length];
		for (int i = 0; i < this.batches.length; i++) {
			this.batches[i] = id(base.minus(Duration.ofDays(1)).toEpochMilli() + i);
		}
	}

	static String queue(int i) {
		return "scale-" + ((i % 2 == 0) ? 0 : 1 + (i / 2) % (QUEUES - 1));
	}

	/** The session the running tasks belong to; its heartbeat must be kept fresh while they should stay running. */
	UUID session() {
		return this.session;
	}

	Found found() {
		return this.found;
	}

	/** Loads every row into {@code connection}'s database; returns what the pages should show. */
	Found load(Connection connection, Progress progress) throws SQLException {
		List<String> indexes = dropIndexes(connection);
		progress.note("dropped " + indexes.size() + " secondary indexes for the load");
		copy(connection, "taskqueue_task (id, queue, payload, priority, run_at, enqueued_at, attempt, claimed_by, "
				+ "claimed_at, last_error, headers, unique_key, unique_running, ordering_key, ordering_seq, batch_id)",
				this.tasks, this::task);
		progress.note("copied " + this.tasks + " waiting tasks");
		copy(connection, "taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error, "
				+ "headers, batch_id, unique_key, ordering_key)", this.dead, this::deadTask);
		progress.note("copied " + this.dead + " dead letters");
		copy(connection, "taskqueue_history (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers, "
				+ "unique_key, ordering_key, batch_id)", this.history, this::completed);
		progress.note("copied " + this.history + " history rows");
		copy(connection, "taskqueue_batch (id, total, then_task_id, then_queue, then_payload, then_priority, created_at)",
				this.batches.length, this::batch);
		try (Statement statement = connection.createStatement()) {
			statement.execute("SET maintenance_work_mem = '1GB'");
			for (String index : indexes) {
				statement.execute(index);
			}
			progress.note("built the " + indexes.size() + " indexes again");
			statement.execute("SELECT setval('taskqueue_task_ordering_seq', " + (this.tasks + 1L) + ")");
			statement.execute("INSERT INTO taskqueue_session (id, name) VALUES ('" + this.session + "', 'w10-scale')");
			statement.execute("""
					INSERT INTO taskqueue_queue_minute (queue, minute, completed, failed, ready, oldest_ready_seconds)
					SELECT 'scale-' || q, date_trunc('minute', now()) - m * interval '1 minute', 600 + m %% 50, m %% 7,
					       %d / %d, 3600 + m
					FROM generate_series(0, %d) q, generate_series(1, 1440) m
					""".formatted(this.tasks, QUEUES, QUEUES - 1));
			for (String table : TABLES) {
				statement.execute("VACUUM (ANALYZE) " + table);
			}
			statement.execute("VACUUM (ANALYZE) taskqueue_batch");
			progress.note("vacuumed and analyzed");
		}
		this.found.batch = this.batches[0];
		return this.found;
	}

	private static List<String> dropIndexes(Connection connection) throws SQLException {
		List<String> definitions = new ArrayList<>();
		List<String> names = new ArrayList<>();
		try (Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("""
						SELECT i.indexrelid::regclass AS name, pg_get_indexdef(i.indexrelid) AS definition
						FROM pg_index i
						WHERE i.indrelid IN ('taskqueue_task'::regclass, 'taskqueue_dead_task'::regclass,
						                     'taskqueue_history'::regclass)
						  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
						ORDER BY 1
						""")) {
			while (rows.next()) {
				names.add(rows.getString("name"));
				definitions.add(rows.getString("definition"));
			}
		}
		try (Statement statement = connection.createStatement()) {
			for (String name : names) {
				statement.execute("DROP INDEX " + name);
			}
		}
		return definitions;
	}

	private static void copy(Connection connection, String table, int rows, IntFunction<String> row)
			throws SQLException {
		CopyIn copy = connection.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + table + " FROM STDIN");
		try {
			StringBuilder chunk = new StringBuilder(1 << 20);
			for (int i = 0; i < rows; i++) {
				chunk.append(row.apply(i)).append('\n');
				if (chunk.length() > (1 << 20)) {
					byte[] bytes = chunk.toString().getBytes(StandardCharsets.UTF_8);
					copy.writeToCopy(bytes, 0, bytes.length);
					chunk.setLength(0);
				}
			}
			byte[] bytes = chunk.toString().getBytes(StandardCharsets.UTF_8);
			copy.writeToCopy(bytes, 0, bytes.length);
			copy.endCopy();
		}
		finally {
			if (copy.isActive()) {
				copy.cancelCopy();
			}
		}
	}

	/*
	 * Task i of the load: enqueued i milliseconds after the first, so that ids (version 7, as DefaultTaskQueue.nextId
	 * makes them) and times rise together. Of each 100: 0-4 a unique key, 5-9 an ordering key, 10-19 a batch; every
	 * tenth task is due later, every fiftieth of those waits to retry after an error; a few with 99 run, all in
	 * scale-0.
	 */
	private String task(int i) {
		boolean running = i % 100 == 99 && i % (Math.max(1, this.tasks / 10_000) * 100) == 99;
		String queue = running ? "scale-0" : queue(i);
		Instant enqueued = this.base.minusMillis(this.tasks - (long) i);
		int kind = i % 100;
		boolean scheduled = i % 10 == 4;
		boolean retrying = i % 50 == 14;
		Instant runAt = scheduled ? this.base.plusSeconds(3600 + (i * 7919L) % 172_800) : enqueued;
		String claimedBy = running ? this.session.toString() : null;
		String uniqueKey = (kind < 5) ? "order-" + i : null;
		String orderingKey = null;
		if (kind >= 5 && kind < 10) {
			orderingKey = "customer-" + (i / 100) % Math.max(1, this.tasks / 1_000);
			if (!this.found.heads.add(queue + "/" + orderingKey)) {
				claimedBy = NIL;
				this.found.held(queue, orderingKey);
			}
		}
		UUID batch = null;
		if (kind >= 10 && kind < 20) {
			int b = (i / 100) % this.batches.length;
			batch = this.batches[b];
			this.batchTotals[b]++;
		}
		UUID id = id(enqueued.toEpochMilli());
		this.found.task(i, id, queue, scheduled, uniqueKey, orderingKey, claimedBy);
		return String.join("\t", id.toString(), queue, payload(i), String.valueOf(PRIORITIES[(i / 3) % 4]),
				runAt.toString(), enqueued.toString(), String.valueOf(retrying ? 2 : running ? 1 : 0), text(claimedBy),
				running ? this.base.minusSeconds(30).toString() : "\\N",
				retrying ? "java.lang.IllegalStateException: payment provider answered 503 for task " + i
						+ "\\n\\tat com.example.billing.PaymentClient.charge(PaymentClient.java:88)" : "\\N",
				headers(i), text(uniqueKey), String.valueOf(uniqueKey != null && i % 2 == 0), text(orderingKey),
				(orderingKey != null) ? String.valueOf(i + 1L) : "\\N", text((batch != null) ? batch.toString() : null));
	}

	// Dead letter j failed (13 days / dead) after dead letter j - 1; every tenth was in a batch. Of each 100, 2-4 had
	// a unique key and 5-9 an ordering key (the waiting tasks' keys: a customer's older tasks that failed).
	private String deadTask(int j) {
		Instant failed = this.base.minusMillis((this.dead - (long) j) * Duration.ofDays(13).toMillis() / this.dead);
		Instant enqueued = failed.minusSeconds(600);
		UUID batch = (j % 10 == 1) ? this.batches[j % this.batches.length] : null;
		if (batch != null) {
			this.batchTotals[j % this.batches.length]++;
		}
		UUID id = id(enqueued.toEpochMilli());
		// One in 10,000 in a queue of its own: its page must not read the others' dead letters to find them.
		String queue = (j % 10_000 == 7) ? RARE_QUEUE : queue(j);
		this.found.dead(j, id, queue, failed);
		String uniqueKey = (j % 100 >= 2 && j % 100 < 5) ? "order-dead-" + j : null;
		if (uniqueKey != null && this.found.deadUniqueKey == null && j >= this.dead / 2) {
			this.found.deadUniqueKey = uniqueKey;
		}
		String error = (j == this.dead / 2) ? "java.lang.IllegalStateException: " + Found.RARE
				: "java.lang.IllegalStateException: payment provider answered 503 for order " + j
						+ "\\n\\tat com.example.billing.PaymentClient.charge(PaymentClient.java:88)"
						+ "\\n\\tat com.example.billing.ChargeHandler.handle(ChargeHandler.java:31)";
		return String.join("\t", id.toString(), queue, payload(j), String.valueOf(PRIORITIES[j % 4]),
				String.valueOf(1 + j % 5), enqueued.toString(), failed.toString(), error, headers(j),
				text((batch != null) ? batch.toString() : null), text(uniqueKey), text(customer(j)));
	}

	// History row h completed (6 days / history) after row h - 1. Of each 100, 0-4 had a unique key, 5-9 an ordering
	// key (the waiting tasks' keys), 10-19 were in a batch, as the waiting tasks (schema V21 keeps them).
	private String completed(int h) {
		Instant done = this.base.minusMillis((this.history - (long) h) * Duration.ofDays(6).toMillis() / this.history);
		Instant enqueued = done.minusSeconds(5);
		UUID id = id(enqueued.toEpochMilli());
		this.found.completed(h, id);
		String uniqueKey = (h % 100 < 5) ? "order-done-" + h : null;
		if (uniqueKey != null && this.found.historyUniqueKey == null && h >= this.history / 2) {
			this.found.historyUniqueKey = uniqueKey;
		}
		UUID batch = null;
		if (h % 100 >= 10 && h % 100 < 20) {
			int b = (h / 100) % this.batches.length;
			batch = this.batches[b];
			this.batchTotals[b]++;
		}
		return String.join("\t", id.toString(), queue(h), payload(h), String.valueOf(PRIORITIES[h % 4]), "1",
				enqueued.toString(), done.toString(), headers(h), text(uniqueKey), text(customer(h)),
				text((batch != null) ? batch.toString() : null));
	}

	/** The ordering key of row {@code n} of the dead letters or the history (5-9 of each 100), as task n's. */
	private String customer(int n) {
		return (n % 100 >= 5 && n % 100 < 10) ? "customer-" + (n / 100) % Math.max(1, this.tasks / 1_000) : null;
	}

	private String batch(int b) {
		return String.join("\t", this.batches[b].toString(), String.valueOf(this.batchTotals[b]),
				id(this.base.toEpochMilli()).toString(), "scale-done", "{\"batch\": " + b + "}", "0",
				this.base.minus(Duration.ofDays(1)).plusMillis(b).toString());
	}

	private static String payload(int n) {
		return "{\"n\": " + n + ", \"amount\": " + (n % 10_000) / 100.0 + ", \"customer\": \"c" + (n % 977) + "\"}";
	}

	private static String headers(int n) {
		return (n % 10 == 0) ? "{\"traceparent\": \"00-" + String.format("%032x", n) + "-00f067aa0ba902b7-01\"}" : "{}";
	}

	private static String text(String value) {
		return (value != null) ? value : "\\N";
	}

	/** A version 7 id of {@code millis}, rising within one millisecond, as {@code DefaultTaskQueue.nextId} makes them. */
	private UUID id(long millis) {
		if (millis > this.lastMillis) {
			this.lastMillis = millis;
			this.counter = 0;
		}
		else if (++this.counter > 0xFFF) {
			this.lastMillis++;
			this.counter = 0;
		}
		long high = (this.lastMillis << 16) | 0x7000L | this.counter;
		long low = (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
		return new UUID(high, low);
	}

	/** Where the load says how far it got. */
	interface Progress {

		void note(String step);

	}

	/**
	 * Rows the pages must show, picked while they are written: a ready task of {@code scale-0}, a dead letter and a
	 * completed task from the middle of their tables, a unique key, an ordering key with held tasks, a batch.
	 */
	static final class Found {

		/** An error text only one dead letter has: the dead letters' text filter reads them all to find it. */
		static final String RARE = "ledger-w10-needle";

		private final Set<String> heads = new HashSet<>();

		UUID readyTask;

		UUID deadTask;

		Instant deadFailedAt;

		String deadQueue;

		UUID completedTask;

		/** A dead letter's unique key, from the second half of the table. */
		String deadUniqueKey;

		/** A completed task's unique key, from the second half of the history. */
		String historyUniqueKey;

		String uniqueKey;

		String orderingKey;

		String heldQueue;

		UUID batch;

		private void task(int i, UUID id, String queue, boolean scheduled, String uniqueKey, String orderingKey,
				String claimedBy) {
			if (this.readyTask == null && queue.equals("scale-0") && !scheduled && claimedBy == null
					&& uniqueKey == null && orderingKey == null) {
				this.readyTask = id;
			}
			if (uniqueKey != null && this.uniqueKey == null) {
				this.uniqueKey = uniqueKey;
			}
		}

		private void held(String queue, String orderingKey) {
			if (this.orderingKey == null) {
				this.orderingKey = orderingKey;
				this.heldQueue = queue;
			}
		}

		private void dead(int j, UUID id, String queue, Instant failed) {
			if (this.deadTask == null || j % 1_000 == 500 && j < 600_000 && !queue.equals(RARE_QUEUE)) {
				this.deadTask = id;
				this.deadQueue = queue;
				this.deadFailedAt = failed;
			}
		}

		private void completed(int h, UUID id) {
			if (this.completedTask == null || h % 1_000 == 500 && h < 600_000) {
				this.completedTask = id;
			}
		}

	}

}
