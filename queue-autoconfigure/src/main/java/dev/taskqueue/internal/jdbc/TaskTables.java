package dev.taskqueue.internal.jdbc;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The names of TaskQueue's tables, qualified with the configured schema. The schema name is checked here, once,
 * because it is the only identifier that reaches SQL text. Public because each concern's package writes its own
 * statements against these names.
 */
public final class TaskTables {

	private static final Pattern SQL_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

	private final @Nullable String schema;

	private TaskTables(@Nullable String schema) {
		this.schema = schema;
	}

	/**
	 * The tables in {@code schema}, or in the connection's current schema when it is {@code null} or empty.
	 * @throws IllegalArgumentException if {@code schema} is not a plain SQL identifier
	 */
	public static TaskTables inSchema(@Nullable String schema) {
		if (schema == null || schema.isEmpty()) {
			return new TaskTables(null);
		}
		if (!SQL_IDENTIFIER.matcher(schema).matches()) {
			throw new IllegalArgumentException("schema must be a plain SQL identifier but was '" + schema + "'");
		}
		return new TaskTables(schema);
	}

	/** The schema, or {@code null} for the connection's current schema. */
	public @Nullable String schema() {
		return this.schema;
	}

	/** The task table, qualified. */
	public String task() {
		return qualify("taskqueue_task");
	}

	/** The {@code taskqueue_session} table, qualified. */
	public String session() {
		return qualify("taskqueue_session");
	}

	/** The {@code taskqueue_dead_task} table, qualified. */
	public String deadTask() {
		return qualify("taskqueue_dead_task");
	}

	/** The {@code taskqueue_queue} table, qualified. */
	public String queue() {
		return qualify("taskqueue_queue");
	}

	/** The {@code taskqueue_queue_minute} table, qualified. */
	public String queueMinute() {
		return qualify("taskqueue_queue_minute");
	}

	/** The {@code taskqueue_history} table, qualified. */
	public String history() {
		return qualify("taskqueue_history");
	}

	/** The {@code taskqueue_task_ordering_seq} table, qualified. */
	public String orderingSequence() {
		return qualify("taskqueue_task_ordering_seq");
	}

	/** The {@code taskqueue_batch} table, qualified. */
	public String batch() {
		return qualify("taskqueue_batch");
	}

	/** The {@code taskqueue_waiting_task} table, qualified. */
	public String waitingTask() {
		return qualify("taskqueue_waiting_task");
	}

	/** The {@code taskqueue_cancel_request} table, qualified. */
	public String cancelRequest() {
		return qualify("taskqueue_cancel_request");
	}

	/** The {@code taskqueue_progress} table, qualified. */
	public String progress() {
		return qualify("taskqueue_progress");
	}

	/** The {@code taskqueue_result} table, qualified. */
	public String result() {
		return qualify("taskqueue_result");
	}

	/** The {@code taskqueue_topic_subscription} table, qualified. */
	public String topicSubscription() {
		return qualify("taskqueue_topic_subscription");
	}

	/** The {@code taskqueue_audit} table, qualified. */
	public String audit() {
		return qualify("taskqueue_audit");
	}

	private String qualify(String table) {
		return (this.schema != null) ? '"' + this.schema + "\"." + table : table;
	}

}
