package dev.taskqueue.internal.worker;

import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The progress that running tasks report ({@code taskqueue_progress}): written by the worker's progress writer, many
 * tasks in one statement, outside any handler's transaction so that it shows while the task runs; deleted once the
 * task's attempt ends. Every statement runs in its own transaction (auto-commit). The operations read it and prune
 * what a dead worker left ({@code operations/ProgressQueries}).
 */
final class ProgressRepository {

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

	private final JdbcTemplate jdbcTemplate;

	private final String write;

	private final String delete;

	ProgressRepository(DataSource dataSource, TaskTables tables) {
		this.jdbcTemplate = new JdbcTemplate(dataSource);
		this.write = WRITE.formatted(tables.progress());
		this.delete = DELETE.formatted(tables.progress());
	}

	/** Writes the latest {@code reports}, one per task, with one statement. */
	void write(Collection<Report> reports) {
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
	void delete(Collection<UUID> ids) {
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

	private static Array uuids(Connection connection, Collection<UUID> ids) throws SQLException {
		return connection.createArrayOf("uuid", ids.toArray());
	}

	/** The latest report of a running task's progress. */
	record Report(UUID id, int attempt, int percent, @Nullable String message) {
	}

}
