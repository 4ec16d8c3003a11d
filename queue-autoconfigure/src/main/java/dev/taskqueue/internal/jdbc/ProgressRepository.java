package dev.taskqueue.internal.jdbc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The progress that running tasks report ({@code taskqueue_progress}): written by the worker's progress writer, many
 * tasks in one statement, outside any handler's transaction so that it shows while the task runs; deleted once the
 * task's attempt ends. Every statement runs in its own transaction (auto-commit).
 */
public class ProgressRepository {

	// One statement for every task that reported progress since the last write: the latest report of each, timed
	// on the database clock, as everything else of TaskQueue's.
	private static final String WRITE = """
			INSERT INTO %1$s (id, attempt, percent, message, updated_at)
			SELECT id, attempt, percent, message, now()
			FROM unnest(?::uuid[], ?::integer[], ?::smallint[], ?::text[]) AS r (id, attempt, percent, message)
			ON CONFLICT (id) DO UPDATE SET attempt = excluded.attempt, percent = excluded.percent,
			    message = excluded.message, updated_at = excluded.updated_at
			""";

	private static final String DELETE = """
			DELETE FROM %1$s WHERE id = ANY(?::uuid[])
			""";

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

	private final JdbcTemplate jdbcTemplate;

	private final JdbcClient jdbc;

	private final String write;

	private final String delete;

	private final String read;

	private final String prune;

	public ProgressRepository(DataSource dataSource, TaskTables tables) {
		this.jdbcTemplate = new JdbcTemplate(dataSource);
		this.jdbc = JdbcClient.create(dataSource);
		this.write = WRITE.formatted(tables.progress());
		this.delete = DELETE.formatted(tables.progress());
		this.read = READ.formatted(tables.progress(), tables.task());
		this.prune = PRUNE.formatted(tables.progress(), tables.task());
	}

	/** Writes the latest {@code reports}, one per task, with one statement. */
	public void write(Collection<Report> reports) {
		if (reports.isEmpty()) {
			return;
		}
		int size = reports.size();
		Object[] ids = new Object[size];
		Object[] attempts = new Object[size];
		Object[] percents = new Object[size];
		Object[] messages = new Object[size];
		int i = 0;
		for (Report report : reports) {
			ids[i] = report.id();
			attempts[i] = report.attempt();
			percents[i] = (short) report.percent();
			messages[i] = report.message();
			i++;
		}
		this.jdbcTemplate.execute((ConnectionCallback<Integer>) (connection) -> {
			try (var statement = connection.prepareStatement(this.write)) {
				statement.setArray(1, connection.createArrayOf("uuid", ids));
				statement.setArray(2, connection.createArrayOf("integer", attempts));
				statement.setArray(3, connection.createArrayOf("smallint", percents));
				statement.setArray(4, connection.createArrayOf("text", messages));
				return statement.executeUpdate();
			}
		});
	}

	/** Deletes the progress of {@code ids}, whose attempts have ended. */
	public void delete(Collection<UUID> ids) {
		if (ids.isEmpty()) {
			return;
		}
		this.jdbcTemplate.execute((ConnectionCallback<Integer>) (connection) -> {
			try (var statement = connection.prepareStatement(this.delete)) {
				statement.setArray(1, uuids(connection, ids));
				return statement.executeUpdate();
			}
		});
	}

	/** The progress of task {@code id}'s running attempt, if it reported one. */
	public Optional<Stored> read(UUID id) {
		return this.jdbc.sql(this.read).param("id", id).query((rows, row) -> new Stored(rows.getInt(1),
				rows.getString(2), rows.getTimestamp(3).toInstant())).optional();
	}

	/** Deletes up to {@code batch} rows of attempts that ended without deleting them, not updated for {@code keep}. */
	public int prune(Duration keep, int batch) {
		return this.jdbc.sql(this.prune)
			.param("keepMicros", keep.toNanos() / 1000, Types.BIGINT)
			.param("batch", batch)
			.update();
	}

	private static Array uuids(Connection connection, Collection<UUID> ids) throws SQLException {
		return connection.createArrayOf("uuid", ids.toArray());
	}

	/** The latest report of a running task's progress. */
	public record Report(UUID id, int attempt, int percent, @Nullable String message) {
	}

	/** A task's stored progress; {@code updatedAt} is when it was written, on the database clock. */
	public record Stored(int percent, @Nullable String message, Instant updatedAt) {
	}

}
