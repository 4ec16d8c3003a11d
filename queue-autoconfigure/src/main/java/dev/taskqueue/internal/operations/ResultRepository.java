package dev.taskqueue.internal.operations;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Reads the results that handlers gave ({@code taskqueue_result}), by task or by batch, and deletes them after
 * their retention. They are written by the worker's {@code TaskRepository.keepResult}, in the transaction of each
 * completion; the dashboard reads the start of one itself ({@code dashboard/ResultStarts}). The operations own
 * this table's reads and its retention; the actuator endpoint reads through {@link OperationsConfiguration#results}.
 * Statements join the current Spring-managed transaction.
 */
class ResultRepository {

	private static final String READ = """
			SELECT id, queue, result::text FROM %1$s WHERE id = :id
			""";

	// A batch's results a page at a time, by id (keyset), on the partial index of batch_id.
	private static final String READ_BATCH = """
			SELECT id, queue, result::text FROM %1$s WHERE batch_id = :batch AND id > :after ORDER BY id LIMIT :limit
			""";

	// SKIP LOCKED: instances pruning at the same time share the rows instead of waiting for each other.
	private static final String PRUNE = """
			DELETE FROM %1$s WHERE id IN (
			    SELECT id FROM %1$s WHERE completed_at < now() - :keepMicros * interval '1 microsecond'
			    LIMIT :batch FOR UPDATE SKIP LOCKED)
			""";

	private final JdbcClient jdbc;

	private final String read;

	private final String readBatch;

	private final String prune;

	ResultRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.read = READ.formatted(tables.result());
		this.readBatch = READ_BATCH.formatted(tables.result());
		this.prune = PRUNE.formatted(tables.result());
	}

	/** Task {@code id}'s result, if it completed with one that is still kept. */
	Optional<Kept> read(UUID id) {
		return this.jdbc.sql(this.read).param("id", id).query(ResultRepository::kept).optional();
	}

	/**
	 * Up to {@code limit} results of the tasks of batch {@code batch} whose ids come after {@code after}
	 * ({@code null} for the first page), in the order of their ids.
	 */
	List<Kept> readBatch(UUID batch, @Nullable UUID after, int limit) {
		// UUIDs compare as PostgreSQL orders them (unsigned bytes); the smallest one starts before any id.
		UUID from = (after != null) ? after : new UUID(0, 0);
		return this.jdbc.sql(this.readBatch)
			.param("batch", batch)
			.param("after", from)
			.param("limit", limit)
			.query(ResultRepository::kept)
			.list();
	}

	/** Deletes up to {@code batch} results kept more than {@code keep}; returns how many. */
	int prune(Duration keep, int batch) {
		return this.jdbc.sql(this.prune)
			.param("keepMicros", keep.toNanos() / 1000, Types.BIGINT)
			.param("batch", batch)
			.update();
	}

	private static Kept kept(ResultSet rows, int row) throws SQLException {
		return new Kept(rows.getObject(1, UUID.class), rows.getString(2), rows.getString(3));
	}

	/** A task's result, as JSON, with the queue of the task, which the endpoint's redactor asks for. */
	record Kept(UUID id, String queue, String json) {
	}

}
