package dev.taskqueue.internal.operations;

import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Reads the progress that running tasks report ({@code taskqueue_progress}) for {@code TaskQueueOperations.progress},
 * and prunes the rows of attempts whose worker died before it deleted them. The worker writes and deletes them
 * ({@code worker/ProgressRepository}). Every statement runs in its own transaction (auto-commit).
 */
final class ProgressQueries {

	// Only the progress of the attempt that runs now: a row left by an earlier attempt (its worker died before it
	// could delete it) or by a task that is no longer there is not shown.
	private static final String READ = """
			SELECT p.percent, p.message, p.updated_at FROM %1$s p
			JOIN %2$s t ON t.id = p.id AND t.attempt = p.attempt AND t.claimed_by IS NOT NULL
			WHERE p.id = :id
			""";

	// The rows whose worker died before it deleted them: not updated for a while, and of no running attempt.
	private static final String PRUNE = """
			DELETE FROM %1$s WHERE id IN (
			    SELECT p.id FROM %1$s p
			    WHERE p.updated_at < now() - :keepMicros * interval '1 microsecond'
			      AND NOT EXISTS (SELECT 1 FROM %2$s t WHERE t.id = p.id AND t.attempt = p.attempt
			          AND t.claimed_by IS NOT NULL)
			    LIMIT :batch FOR UPDATE SKIP LOCKED)
			""";

	private final JdbcClient jdbc;

	private final String read;

	private final String prune;

	ProgressQueries(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.read = READ.formatted(tables.progress(), tables.task());
		this.prune = PRUNE.formatted(tables.progress(), tables.task());
	}

	/** The progress of task {@code id}'s running attempt, if it reported one. */
	Optional<Stored> read(UUID id) {
		return this.jdbc.sql(this.read).param("id", id).query((rows, row) -> new Stored(rows.getInt(1),
				rows.getString(2), rows.getTimestamp(3).toInstant())).optional();
	}

	/** Deletes up to {@code batch} rows of attempts that ended without deleting them, not updated for {@code keep}. */
	int prune(Duration keep, int batch) {
		return this.jdbc.sql(this.prune)
			.param("keepMicros", keep.toNanos() / 1000, Types.BIGINT)
			.param("batch", batch)
			.update();
	}

	/** A task's stored progress; {@code updatedAt} is when it was written, on the database clock. */
	record Stored(int percent, @Nullable String message, Instant updatedAt) {
	}

}
