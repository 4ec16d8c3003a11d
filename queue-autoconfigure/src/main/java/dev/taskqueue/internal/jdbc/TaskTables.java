package dev.taskqueue.internal.jdbc;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The names of TaskQueue's tables, qualified with the configured schema. The schema name is checked here, once,
 * because it is the only identifier that reaches SQL text.
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

	String session() {
		return qualify("taskqueue_session");
	}

	String deadTask() {
		return qualify("taskqueue_dead_task");
	}

	String queue() {
		return qualify("taskqueue_queue");
	}

	String queueMinute() {
		return qualify("taskqueue_queue_minute");
	}

	String history() {
		return qualify("taskqueue_history");
	}

	String orderingSequence() {
		return qualify("taskqueue_task_ordering_seq");
	}

	String batch() {
		return qualify("taskqueue_batch");
	}

	String waitingTask() {
		return qualify("taskqueue_waiting_task");
	}

	String cancelRequest() {
		return qualify("taskqueue_cancel_request");
	}

	String progress() {
		return qualify("taskqueue_progress");
	}

	String result() {
		return qualify("taskqueue_result");
	}

	String topicSubscription() {
		return qualify("taskqueue_topic_subscription");
	}

	String audit() {
		return qualify("taskqueue_audit");
	}

	private String qualify(String table) {
		return (this.schema != null) ? '"' + this.schema + "\"." + table : table;
	}

}
