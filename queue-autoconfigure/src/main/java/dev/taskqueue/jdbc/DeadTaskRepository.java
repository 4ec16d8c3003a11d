package dev.taskqueue.jdbc;

import java.util.UUID;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Dead letters an operator retries or deletes. A retried task goes back to its queue ready at once, with its
 * attempts counted from zero, its original id, payload, priority, enqueue time and headers, and its last error.
 * <p>
 * Statements join the current Spring-managed transaction.
 */
public class DeadTaskRepository {

	// One statement moves the row: a concurrent retry of the same task finds it gone and moves nothing.
	private static final String RETRY = """
			WITH dead AS (DELETE FROM %2$s WHERE %3$s RETURNING *)
			INSERT INTO %1$s (id, queue, payload, priority, run_at, enqueued_at, attempt, last_error, headers)
			SELECT id, queue, payload, priority, now(), enqueued_at, 0, error, headers FROM dead
			""";

	private static final String DELETE = """
			DELETE FROM %1$s WHERE %2$s
			""";

	private final JdbcClient jdbc;

	private final String retryOne;

	private final String retryQueue;

	private final String deleteOne;

	private final String deleteQueue;

	public DeadTaskRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.retryOne = RETRY.formatted(tables.task(), tables.deadTask(), "id = :id");
		this.retryQueue = RETRY.formatted(tables.task(), tables.deadTask(), "queue = :queue");
		this.deleteOne = DELETE.formatted(tables.deadTask(), "id = :id");
		this.deleteQueue = DELETE.formatted(tables.deadTask(), "queue = :queue");
	}

	/** Moves dead task {@code id} back to its queue; {@code false} when there is none. */
	public boolean retry(UUID id) {
		return this.jdbc.sql(this.retryOne).param("id", id).update() == 1;
	}

	/** Moves every dead task of {@code queue} back to it and returns how many. */
	public int retryAll(String queue) {
		return this.jdbc.sql(this.retryQueue).param("queue", queue).update();
	}

	/** Deletes dead task {@code id}; {@code false} when there is none. */
	public boolean delete(UUID id) {
		return this.jdbc.sql(this.deleteOne).param("id", id).update() == 1;
	}

	/** Deletes every dead task of {@code queue} and returns how many. */
	public int deleteAll(String queue) {
		return this.jdbc.sql(this.deleteQueue).param("queue", queue).update();
	}

}
