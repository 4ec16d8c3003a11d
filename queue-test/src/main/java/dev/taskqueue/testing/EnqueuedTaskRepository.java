package dev.taskqueue.testing;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Reads the task table for {@link TaskQueueTester}. Statements run on the application's {@link DataSource} and
 * join the caller's transaction, so a {@code @Transactional} test sees the tasks it has not committed.
 */
final class EnqueuedTaskRepository {

	private static final String SELECT = """
			SELECT id, queue, payload::text AS payload, priority, run_at, run_at <= now() AS due, enqueued_at, attempt,
			       last_error, headers::text AS headers, fairness_key
			FROM %1$s
			""";

	private static final String ORDER = """
			ORDER BY queue, priority DESC, run_at, id
			""";

	private static final String MAKE_DUE = """
			UPDATE %1$s SET run_at = now() WHERE queue = :queue AND claimed_by IS NULL AND run_at > now()
			""";

	// What the database makes of a payload, so that it compares with stored ones whatever the JSON's spelling.
	private static final String AS_STORED = """
			SELECT CAST(:json AS jsonb)::text
			""";

	private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
	};

	private final JdbcClient jdbc;

	private final JsonMapper mapper;

	private final String all;

	private final String onQueue;

	private final String makeDue;

	EnqueuedTaskRepository(DataSource dataSource, TaskTables tables, JsonMapper mapper) {
		this.jdbc = JdbcClient.create(dataSource);
		this.mapper = mapper;
		String task = tables.task();
		this.all = SELECT.formatted(task) + ORDER;
		this.onQueue = SELECT.formatted(task) + "WHERE queue = :queue\n" + ORDER;
		this.makeDue = MAKE_DUE.formatted(task);
	}

	List<EnqueuedTask> all() {
		return this.jdbc.sql(this.all).query(this::task).list();
	}

	List<EnqueuedTask> onQueue(String queue) {
		return this.jdbc.sql(this.onQueue).param("queue", queue).query(this::task).list();
	}

	int makeDue(String queue) {
		return this.jdbc.sql(this.makeDue).param("queue", queue).update();
	}

	String asStored(String json) {
		return this.jdbc.sql(AS_STORED).param("json", json).query(String.class).single();
	}

	private EnqueuedTask task(ResultSet rs, int row) throws SQLException {
		String headers = rs.getString("headers");
		return new EnqueuedTask(rs.getObject("id", UUID.class), rs.getString("queue"), rs.getString("payload"),
				rs.getInt("priority"), rs.getObject("run_at", OffsetDateTime.class).toInstant(), rs.getBoolean("due"),
				rs.getObject("enqueued_at", OffsetDateTime.class).toInstant(), rs.getInt("attempt"),
				rs.getString("last_error"),
				(headers == null || headers.equals("{}")) ? Map.of() : Map.copyOf(this.mapper.readValue(headers, HEADERS)),
				rs.getString("fairness_key"), this.mapper);
	}

}
