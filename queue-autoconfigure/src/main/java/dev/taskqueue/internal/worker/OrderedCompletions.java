package dev.taskqueue.internal.worker;

import java.util.List;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.OrderedKeys;
import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

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

	private final HotStatements statements;

	private final JdbcClient jdbc;

	private final String complete;

	private final String completeAll;

	private final String moveToDead;

	/**
	 * @param driver the database's claims, whose times the hand-offs of completeAll return as they do
	 * @param moveToDead TaskRepository's move to the dead letters with the promotion of the key's next task
	 */
	OrderedCompletions(HotStatements statements, JdbcClient jdbc, TaskTables tables, boolean history,
			StorageDriver driver, String moveToDead) {
		this.statements = statements;
		this.jdbc = jdbc;
		String promote = OrderedKeys.promote(tables, "completed").stripTrailing();
		String kept = history ? ",\n" + TaskCompletions.kept(tables).stripTrailing()
				: "";
		this.complete = COMPLETE.formatted(tables.task(), promote + kept);
		this.completeAll = TaskCompletions.COMPLETE_ALL_AND.formatted(tables.task(),
				OrderedKeys.handOff(tables, "completed", driver::claimedTime).stripTrailing() + kept,
				TaskClaims.COMPLETED_AND_HANDED_OFF);
		this.moveToDead = moveToDead;
	}

	boolean complete(ClaimedTask task) {
		UUID session = CompletionFences.session(task.claimedBy());
		return this.statements.query(this.complete, (statement, connection) -> {
			statement.setObject(1, task.id());
			statement.setObject(2, session);
			statement.setInt(3, task.attempt());
		}, (rows) -> rows.next() && rows.getInt(1) == 1);
	}

	/** {@link TaskRepository#completeAll(UUID, List, String)} for tasks some of which have an ordering key. */
	ClaimResult completeAll(UUID session, List<ClaimedTask> tasks, @Nullable String handOffQueue) {
		CompletionFences fences = new CompletionFences(tasks);
		UUID handOffSession = (handOffQueue != null) ? CompletionFences.session(session) : null;
		return this.statements.query(this.completeAll, (statement, connection) -> {
			fences.bind(statement, connection, 1);
			OrderedKeys.bindHandOff(statement, 3, handOffQueue, handOffSession);
		}, TaskClaims::claimResult);
	}

	boolean moveToDead(ClaimedTask task, String error, int maxAttempts, String outcome) {
		return this.jdbc.sql(this.moveToDead)
			.param("id", task.id())
			.param("session", CompletionFences.session(task.claimedBy()))
			.param("attempt", task.attempt())
			.param("error", error)
			.param("maxAttempts", maxAttempts)
			.param("outcome", outcome)
			.update() == 1;
	}

}
