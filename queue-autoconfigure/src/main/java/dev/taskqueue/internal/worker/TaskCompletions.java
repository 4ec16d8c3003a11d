package dev.taskqueue.internal.worker;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.AttemptLog;
import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.TaskTables;

/**
 * The completions of {@link TaskRepository}: the fenced deletes of completed tasks, one or many in a statement,
 * keeping them in the history when it is on. Tasks with an ordering key go to {@link KeyStatements} (the
 * repository sends them there), whose statements are these with the promotion (or hand-off) of the key's next task
 * added.
 */
final class TaskCompletions {

	// The fence in the statements below is "claimed_by IS NOT DISTINCT FROM :session", the same as = for the
	// non-null session they are given (see CompletionFences.session), so that no plan can use the partial index on
	// claimed_by: after an ANALYZE that saw no claimed row, = looks more selective there than on the primary key, and
	// that index holds an entry for every claim of the session that VACUUM has not removed yet, thousands per second
	// under a held xmin horizon. The primary key finds the row at once.
	private static final String COMPLETE = """
			DELETE FROM %1$s WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ?
			""";

	// COMPLETE that also keeps the task in the history (taskqueue.history.enabled). Counts as one row exactly when
	// the fenced delete does; DO UPDATE rather than DO NOTHING so that a conflict cannot pass for a lost claim.
	// The history copies the task's attempt log (%3$s, AttemptLog.completed): NULL for a task that never failed.
	private static final String COMPLETE_WITH_HISTORY = """
			WITH done AS (DELETE FROM %1$s
			    WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ? RETURNING *)
			INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers, unique_key,
			                  ordering_key, fairness_key, batch_id, attempt_log)
			SELECT id, queue, payload, priority, attempt, enqueued_at, now(), headers, unique_key, ordering_key,
			       fairness_key, batch_id, %3$s
			FROM done
			ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, completed_at = excluded.completed_at,
			       attempt_log = excluded.attempt_log
			""";

	// Many completions in one statement, each fenced by its own claim (CompletionFences).
	private static final String COMPLETE_ALL = "DELETE FROM %1$s t WHERE " + CompletionFences.FENCED
			+ "\nRETURNING t.id\n";

	// Keeps the tasks of a "completed" CTE in the history (%2$s), here and in TaskClaims' fold of completions into a
	// claim. A task that followed its key's head in a group (worker/KeyRuns) is deleted unclaimed, at attempt 0: it
	// ran once. The attempt log is copied as in COMPLETE_WITH_HISTORY (%3$s).
	private static final String KEPT = """
			kept AS (
			    INSERT INTO %2$s (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers,
			                      unique_key, ordering_key, fairness_key, batch_id, attempt_log)
			    SELECT id, queue, payload, priority, greatest(attempt, 1), enqueued_at, now(), headers, unique_key,
			           ordering_key, fairness_key, batch_id, %3$s FROM completed
			    ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, completed_at = excluded.completed_at,
			           attempt_log = excluded.attempt_log)
			""";

	/** {@link #KEPT} of {@code tables}. */
	static String kept(TaskTables tables) {
		return KEPT.formatted(tables.task(), tables.history(), AttemptLog.completed("completed", tables));
	}

	// COMPLETE_ALL as a "completed" CTE, followed by more CTEs on it (%2$s): KEPT with history, OrderedKeys'
	// HAND_OFF for tasks with an ordering key (KeyStatements), or both; then the SELECT %3$s, by default
	// COMPLETED_IDS. Parameters: 1 ids, 2 claims, then those of %2$s.
	static final String COMPLETE_ALL_AND = "WITH completed AS (\n    DELETE FROM %1$s t WHERE " + CompletionFences.FENCED
			+ "\n    RETURNING t.*),\n%2$s\n%3$s";

	static final String COMPLETED_IDS = "SELECT id FROM completed\n";

	private final HotStatements statements;

	private final String complete;

	private final String completeAll;

	TaskCompletions(HotStatements statements, TaskTables tables, boolean history) {
		this.statements = statements;
		this.complete = history ? COMPLETE_WITH_HISTORY.formatted(tables.task(), tables.history(),
				AttemptLog.completed("done", tables)) : COMPLETE.formatted(tables.task());
		this.completeAll = history
				? COMPLETE_ALL_AND.formatted(tables.task(), kept(tables).stripTrailing(), COMPLETED_IDS)
				: COMPLETE_ALL.formatted(tables.task());
	}

	/** {@link TaskRepository#complete} of a task without an ordering key. */
	boolean complete(ClaimedTask task) {
		UUID session = CompletionFences.session(task.claimedBy());
		return this.statements.update(this.complete, (statement, connection) -> {
			statement.setObject(1, task.id());
			statement.setObject(2, session);
			statement.setInt(3, task.attempt());
		}) == 1;
	}

	/** Deletes {@code tasks}, with or without an ordering key, leaving the next tasks of their keys held. */
	ClaimResult deleteAll(UUID session, List<ClaimedTask> tasks) {
		CompletionFences fences = new CompletionFences(tasks);
		return this.statements.query(this.completeAll,
				(statement, connection) -> fences.bind(statement, connection, 1), (rows) -> {
					Set<UUID> deleted = new HashSet<>();
					while (rows.next()) {
						deleted.add(rows.getObject(1, UUID.class));
					}
					return new ClaimResult(List.of(), deleted);
				});
	}

}
