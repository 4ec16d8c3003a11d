package dev.taskqueue.internal.dashboard;

import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Reads the start of a completed task's result ({@code taskqueue_result}) for the page of one task; the worker writes
 * results and {@code operations/ResultRepository} reads them whole for the operations and the endpoint.
 */
final class ResultStarts {

	// The start of a result, with its whole length when that is not all of it.
	private static final String READ_START = """
			SELECT queue, left(text, :preview), CASE WHEN length(text) > :preview THEN octet_length(text) ELSE 0 END
			FROM (SELECT queue, result::text AS text FROM %1$s WHERE id = :id) whole
			""";

	private final JdbcClient jdbc;

	private final String readStart;

	ResultStarts(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.readStart = READ_START.formatted(tables.result());
	}

	/** The first {@code chars} characters of task {@code id}'s result, if it is kept. */
	Optional<Start> readStart(UUID id, int chars) {
		return this.jdbc.sql(this.readStart)
			.param("id", id)
			.param("preview", chars)
			.query((rows, row) -> new Start(rows.getString(1), rows.getString(2), rows.getLong(3)))
			.optional();
	}

	/**
	 * The start of a task's result.
	 * @param bytes the whole result's length in bytes when {@code json} is only its start, else 0
	 */
	record Start(String queue, String json, long bytes) {
	}

}
