package dev.taskqueue.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The settling statements of {@link TaskRepository} for tasks with an ordering key: the same fenced deletes, with
 * {@link OrderedKeys#PROMOTE} in the same statement, so the next task of the key becomes the head exactly when the
 * old head's deletion commits. Tasks without a key never run these.
 */
final class OrderedCompletions {

	// TaskRepository.COMPLETE(_WITH_HISTORY). Parameters: 1 id, 2 session, 3 attempt. Returns the rows deleted.
	private static final String COMPLETE = """
			WITH completed AS (
			    DELETE FROM %1$s WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ? RETURNING *),
			%2$s
			SELECT count(*) FROM completed
			""";

	// TaskRepository.COMPLETE_ALL(_WITH_HISTORY). Parameters: 1 ids, 2 attempts, 3 session.
	private static final String COMPLETE_ALL = """
			WITH completed AS (
			    DELETE FROM %1$s t USING unnest(?, ?) AS done(id, attempt)
			    WHERE t.id = done.id AND t.attempt = done.attempt AND t.claimed_by IS NOT DISTINCT FROM ?
			    RETURNING t.*),
			%2$s
			SELECT id FROM completed
			""";

	// TaskRepository.MOVE_TO_DEAD, batch_id included: a dead task of a batch counts as dead in it.
	private static final String MOVE_TO_DEAD = """
			WITH completed AS (DELETE FROM %1$s
			    WHERE id = :id AND claimed_by IS NOT DISTINCT FROM :session AND attempt = :attempt RETURNING *),
			%3$s
			INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, failed_at, error, headers, batch_id)
			SELECT id, queue, payload, priority, attempt, enqueued_at, now(), :error, headers, batch_id FROM completed
			ON CONFLICT (id) DO UPDATE SET payload = excluded.payload, attempts = excluded.attempts,
			       failed_at = excluded.failed_at, error = excluded.error, headers = excluded.headers,
			       batch_id = excluded.batch_id
			""";

	private final HotStatements statements;

	private final JdbcClient jdbc;

	private final String complete;

	private final String completeAll;

	private final String moveToDead;

	OrderedCompletions(HotStatements statements, JdbcClient jdbc, TaskTables tables, boolean history) {
		this.statements = statements;
		this.jdbc = jdbc;
		String promote = OrderedKeys.promote(tables, "completed").stripTrailing();
		String also = history ? promote + ",\n" + TaskRepository.KEPT.formatted(tables.task(), tables.history())
				.stripTrailing() : promote;
		this.complete = COMPLETE.formatted(tables.task(), also);
		this.completeAll = COMPLETE_ALL.formatted(tables.task(), also);
		this.moveToDead = MOVE_TO_DEAD.formatted(tables.task(), tables.deadTask(), promote);
	}

	boolean complete(ClaimedTask task) {
		UUID session = TaskRepository.session(task.claimedBy());
		return this.statements.query(this.complete, (statement, connection) -> {
			statement.setObject(1, task.id());
			statement.setObject(2, session);
			statement.setInt(3, task.attempt());
		}, (rows) -> rows.next() && rows.getInt(1) == 1);
	}

	List<UUID> completeAll(UUID session, List<ClaimedTask> tasks) {
		UUID[] ids = new UUID[tasks.size()];
		Integer[] attempts = new Integer[tasks.size()];
		for (int i = 0; i < ids.length; i++) {
			ids[i] = tasks.get(i).id();
			attempts[i] = tasks.get(i).attempt();
		}
		UUID fence = TaskRepository.session(session);
		return this.statements.query(this.completeAll, (statement, connection) -> {
			statement.setArray(1, connection.createArrayOf("uuid", ids));
			statement.setArray(2, connection.createArrayOf("int4", attempts));
			statement.setObject(3, fence);
		}, (rows) -> {
			List<UUID> deleted = new ArrayList<>();
			while (rows.next()) {
				deleted.add(rows.getObject(1, UUID.class));
			}
			return deleted;
		});
	}

	boolean moveToDead(ClaimedTask task, String error) {
		return this.jdbc.sql(this.moveToDead)
			.param("id", task.id())
			.param("session", TaskRepository.session(task.claimedBy()))
			.param("attempt", task.attempt())
			.param("error", error)
			.update() == 1;
	}

}
