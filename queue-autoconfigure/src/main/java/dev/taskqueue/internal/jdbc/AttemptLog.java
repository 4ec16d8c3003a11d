package dev.taskqueue.internal.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.DeadTask;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A task's story (V19's {@code attempt_log}): the last {@link #SIZE} attempts of a task that failed at least once, a
 * JSON array of {@code {attempt, started, ended, instance, outcome, error}}, oldest first, on the task, dead-letter
 * and history tables. Only the statements of the failure paths write it, each appending its attempt and trimming the
 * array in the same expression ({@link #append}): a retry, a dead letter, the cancel of a running task and the
 * expiry of an instance whose claims are taken back. A task that never failed keeps {@code NULL}: its claims and
 * completions write nothing more. A completion kept in the history copies the column and appends the completed
 * attempt when the task failed before ({@link #completed}).
 */
public final class AttemptLog {

	/**
	 * How many attempts a task keeps, the latest: a constant rather than a property, because it bounds the size of a
	 * row (at most about {@code SIZE * (ERROR_LENGTH + 200)} bytes) rather than tuning anything, and the latest ten
	 * attempts tell the story of a task that keeps failing (the older ones failed alike, or the count says so).
	 */
	public static final int SIZE = 10;

	/**
	 * How many characters of an attempt's error the log keeps: the exception, its message and the first frames. The
	 * whole error of the last failed attempt is in {@code last_error}, and the dead letter's.
	 */
	public static final int ERROR_LENGTH = 500;

	/** The outcomes, as stored. */
	public static final String FAILED = "failed", TIMED_OUT = "timed out", DEAD = "dead", CANCELLED = "cancelled",
			LOST = "lost", COMPLETED = "completed";

	/**
	 * When the row's last logged attempt ended: for a waiting or running task, when it last failed (the failure
	 * paths alone write the log); {@code NULL} for a task that never failed. The bulk actions' "failed between" of
	 * waiting tasks, whose row keeps no other failure time (a retry overwrites {@code run_at}).
	 */
	static final String LAST_ENDED = "CAST(attempt_log -> (jsonb_array_length(attempt_log) - 1) ->> 'ended' "
			+ "AS timestamptz)";

	// The log %1$s with the element %2$s appended, trimmed to its last SIZE elements: one expression, no function of
	// our own (the migrations create none), the same on PostgreSQL, CockroachDB and YugabyteDB.
	private static final String APPEND = """
			(SELECT jsonb_agg(a.e ORDER BY a.i)
			 FROM jsonb_array_elements(coalesce(%1$s, CAST('[]' AS jsonb)) || jsonb_build_array(%2$s))
			      WITH ORDINALITY AS a(e, i)
			 WHERE a.i > jsonb_array_length(coalesce(%1$s, CAST('[]' AS jsonb))) + 1 - %3$d)""";

	// One attempt of the row %1$s: its number and start are the row's claim; %2$s is the instance's name, %3$s the
	// outcome, %4$s the error (cut here).
	private static final String ELEMENT = """
			jsonb_build_object('attempt', %1$s.attempt, 'started', %1$s.claimed_at, 'ended', now(), 'instance', %2$s,
			                   'outcome', %3$s, 'error', left(CAST(%4$s AS text), %5$d))""";

	// The name of the session that claimed the row %1$s, from the session table %2$s; NULL when it is gone.
	private static final String INSTANCE = "(SELECT s.name FROM %2$s s WHERE s.id = %1$s.claimed_by)";

	// The attempts of one task, read from the log of the rows %1$s (of one task), in their order.
	private static final String READ = """
			SELECT CAST(a.e ->> 'attempt' AS integer) AS attempt, CAST(a.e ->> 'started' AS timestamptz) AS started,
			       CAST(a.e ->> 'ended' AS timestamptz) AS ended, a.e ->> 'instance' AS instance,
			       a.e ->> 'outcome' AS outcome, a.e ->> 'error' AS error
			FROM %1$s, jsonb_array_elements(t.attempt_log) WITH ORDINALITY AS a(e, i)
			ORDER BY a.i
			""";

	// The log of task :id wherever it is: waiting or running, dead, or completed in the history (a task is in one of
	// them at a time: each move deletes the row it copies in the same statement).
	private static final String ANYWHERE = """
			(SELECT attempt_log FROM %1$s WHERE id = :id
			 UNION ALL SELECT attempt_log FROM %2$s WHERE id = :id
			 UNION ALL SELECT attempt_log FROM %3$s WHERE id = :id LIMIT 1) t""";

	private AttemptLog() {
	}

	/**
	 * The expression of the log of the row {@code row} with its current attempt appended and the log trimmed.
	 * @param row the row's table or alias, whose {@code attempt_log}, {@code attempt}, {@code claimed_at} and
	 * {@code claimed_by} it reads
	 * @param tables the tables, for the session's name
	 * @param outcome the outcome's SQL: a parameter or a literal
	 * @param error the error's SQL: a parameter, or {@code NULL}
	 */
	public static String append(String row, TaskTables tables, String outcome, String error) {
		return append(row, INSTANCE.formatted(row, tables.session()), outcome, error);
	}

	/** {@link #append} with {@code instance} the SQL of the instance's name. */
	public static String append(String row, String instance, String outcome, String error) {
		return APPEND.formatted(row + ".attempt_log", ELEMENT.formatted(row, instance, outcome, error, ERROR_LENGTH),
				SIZE);
	}

	/**
	 * The log a completed task of the row {@code row} carries into the history: {@code NULL} when it never failed (so
	 * the completion writes nothing more than before), else its log with the completed attempt appended.
	 */
	public static String completed(String row, TaskTables tables) {
		return "CASE WHEN " + row + ".attempt_log IS NULL THEN NULL ELSE "
				+ append(row, tables, "'" + COMPLETED + "'", "NULL") + " END";
	}

	/** The attempts the log of task {@code id} in {@code table} keeps, oldest first; empty when it has none. */
	public static List<DeadTask.Attempt> read(JdbcClient jdbc, String table, UUID id) {
		return readRows(jdbc, "(SELECT attempt_log FROM " + table + " WHERE id = :id) t", id);
	}

	/** The attempts of task {@code id}, waiting, running, dead or in the history; empty when it never failed. */
	static List<DeadTask.Attempt> readAnywhere(JdbcClient jdbc, TaskTables tables, UUID id) {
		return readRows(jdbc, ANYWHERE.formatted(tables.task(), tables.deadTask(), tables.history()), id);
	}

	private static List<DeadTask.Attempt> readRows(JdbcClient jdbc, String rows, UUID id) {
		return jdbc.sql(READ.formatted(rows)).param("id", id).query(AttemptLog::attempt).list();
	}

	private static DeadTask.Attempt attempt(ResultSet rs, int row) throws SQLException {
		return new DeadTask.Attempt(rs.getInt("attempt"), instant(rs, "started"),
				rs.getObject("ended", OffsetDateTime.class).toInstant(),
				rs.getString("instance"), rs.getString("outcome"), rs.getString("error"));
	}

	private static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
		OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
		return (time != null) ? time.toInstant() : null;
	}

}
