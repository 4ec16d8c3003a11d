package dev.taskqueue.internal.jdbc;

import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What operators change about queues: whether a queue is paused (one row per queue in {@code taskqueue_queue},
 * read by every instance with its heartbeat), and which waiting tasks are cancelled.
 * <p>
 * Statements join the current Spring-managed transaction.
 */
public class QueueRepository {

	private static final String SET_PAUSED = """
			INSERT INTO %1$s (name, paused) VALUES (:name, :paused)
			ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, changed_at = now()
			""";

	private static final String PAUSED = """
			SELECT name FROM %1$s WHERE paused
			""";

	private static final String IS_PAUSED = """
			SELECT EXISTS (SELECT 1 FROM %1$s WHERE name = :name AND paused)
			""";

	// A claim in progress holds the row lock: this waits for it, then finds the task claimed and deletes nothing.
	// A task held behind its ordering key (claimed_by HELD, %3$s) waits too; a head cancelled makes the next one the
	// head.
	private static final String CANCEL = """
			WITH completed AS (
			    DELETE FROM %1$s WHERE id = :id AND (claimed_by IS NULL OR claimed_by = %3$s) RETURNING *),
			%2$s
			SELECT count(*) FROM completed
			""";

	// One bounded batch: SKIP LOCKED passes over the rows a claim is taking right now, which are then running. A key
	// whose head and held tasks go in different batches gets its next head from the heartbeat's sweep. %2$s is HELD.
	private static final String CANCEL_WAITING = """
			DELETE FROM %1$s WHERE id IN (
			    SELECT id FROM %1$s WHERE queue = :queue AND (claimed_by IS NULL OR claimed_by = %2$s)
			    LIMIT :batch FOR UPDATE SKIP LOCKED)
			""";

	private final JdbcClient jdbc;

	private final String setPaused;

	private final String paused;

	private final String isPaused;

	private final String cancel;

	private final String cancelWaiting;

	public QueueRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.setPaused = SET_PAUSED.formatted(tables.queue());
		this.paused = PAUSED.formatted(tables.queue());
		this.isPaused = IS_PAUSED.formatted(tables.queue());
		this.cancel = CANCEL.formatted(tables.task(), OrderedKeys.promote(tables, "completed").stripTrailing(),
				OrderedKeys.HELD);
		this.cancelWaiting = CANCEL_WAITING.formatted(tables.task(), OrderedKeys.HELD);
	}

	public void setPaused(String queue, boolean paused) {
		this.jdbc.sql(this.setPaused).param("name", queue).param("paused", paused).update();
	}

	/** The names of the paused queues. */
	public Set<String> paused() {
		return Set.copyOf(this.jdbc.sql(this.paused).query(String.class).list());
	}

	public boolean isPaused(String queue) {
		return this.jdbc.sql(this.isPaused).param("name", queue).query(Boolean.class).single();
	}

	/** Deletes task {@code id} if it is waiting; {@code false} when it is running or does not exist. */
	public boolean cancel(UUID id) {
		return this.jdbc.sql(this.cancel).param("id", id).query(Long.class).single() == 1;
	}

	/** Deletes up to {@code batch} waiting tasks of {@code queue} and returns how many. */
	public int cancelWaiting(String queue, int batch) {
		return this.jdbc.sql(this.cancelWaiting).param("queue", queue).param("batch", batch).update();
	}

}
