package dev.taskqueue.internal.operations;

import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Writes the audit log ({@code taskqueue_audit}): one row per action of an operator; the dashboard reads them
 * ({@code dashboard/AuditEntries}). The statement joins the current Spring-managed transaction, so an entry commits,
 * or rolls back, with its action.
 */
final class AuditRepository {

	/** The longest target kept: a bulk action's filter holds text an operator typed. */
	static final int TARGET_LENGTH = 1000;

	/** The longest principal name kept. */
	static final int ACTOR_LENGTH = 200;

	// The time is the database's, as every other time of the dashboard, so the entries of several instances sort
	// together whatever their clocks. Texts are cut here, not by the callers, so the table stays bounded whoever
	// writes it.
	private static final String RECORD = """
			INSERT INTO %1$s (id, actor, via, action, target, row_count)
			VALUES (:id, left(:actor, %2$d), :via, :action, left(:target, %3$d), :rows)
			""";

	private final JdbcClient jdbc;

	private final String record;

	AuditRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.record = RECORD.formatted(tables.audit(), ACTOR_LENGTH, TARGET_LENGTH);
	}

	/**
	 * Adds an entry, at the database's now.
	 * @param actor who acted: the principal's name, or what stands for it
	 * @param via how: {@code dashboard}, {@code actuator} or {@code api}
	 * @param action what, such as {@code retry-dead}
	 * @param target what it acted on, such as {@code queue emails}
	 * @param rows how many rows the action changed
	 */
	void record(String actor, String via, String action, String target, long rows) {
		this.jdbc.sql(this.record)
			.param("id", UUID.randomUUID())
			.param("actor", actor)
			.param("via", via)
			.param("action", action)
			.param("target", target)
			.param("rows", rows)
			.update();
	}

}
