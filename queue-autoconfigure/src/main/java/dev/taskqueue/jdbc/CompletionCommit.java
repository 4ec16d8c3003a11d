package dev.taskqueue.jdbc;

import java.sql.SQLException;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Deletes a completed task and commits the transaction it ran in, in one round trip: the fenced {@code DELETE} and
 * {@code COMMIT} go to PostgreSQL together, so a task of a handler transaction costs one round trip less than a
 * {@code DELETE} followed by Spring's commit. PostgreSQL's JDBC driver then finds the transaction ended and its
 * {@code commit()} sends nothing.
 * <p>
 * Only for a transaction of a {@code DataSourceTransactionManager} over this data source, run last among the
 * transaction's before-commit callbacks: nothing of the transaction may run after its commit.
 */
public class CompletionCommit {

	/** SQLSTATE of the fence: division by the number of rows deleted, 0 when the claim was lost. */
	private static final String CLAIM_LOST = "22012";

	// The fence must stop the COMMIT sent with it when the claim was lost: a failed statement aborts the
	// transaction, and PostgreSQL skips the rest of the pipeline, so the handler's work cannot commit.
	private static final String COMPLETE = """
			WITH done AS (DELETE FROM %1$s WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ? RETURNING *)
			%2$sSELECT 1 / (SELECT count(*)::int FROM done);
			COMMIT""";

	private static final String KEEP_IN_HISTORY = """
			, kept AS (INSERT INTO %1$s (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers)
			    SELECT id, queue, payload, priority, attempt, enqueued_at, now(), headers FROM done
			    ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, completed_at = excluded.completed_at)
			""";

	// COMPLETE for a task with an ordering key: the next task of its key becomes the head, handed off to the
	// completing session (OrderedKeys.HAND_OFF). One row: the fence, then the handed-off task or nulls.
	private static final String COMPLETE_ORDERED = """
			WITH done AS (DELETE FROM %1$s WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ? RETURNING *)
			%2$sSELECT fence.ok, h.* FROM (SELECT 1 / (SELECT count(*)::int FROM done) AS ok) fence
			LEFT JOIN promoted h ON h.claimed_by IS NOT NULL;
			COMMIT""";

	private final HotStatements statements;

	private final String sql;

	/** {@link #sql} that also makes the next task of the completed task's ordering key its head. */
	private final String orderedSql;

	/**
	 * @param dataSource the data source of the handlers' transaction manager, which is TaskQueue's
	 * @param tables the table names
	 * @param history whether completions also record the task in the history table
	 */
	public CompletionCommit(DataSource dataSource, TaskTables tables, boolean history) {
		this.statements = new HotStatements(dataSource, new JdbcTemplate(dataSource).getExceptionTranslator());
		String kept = history ? KEEP_IN_HISTORY.formatted(tables.history()) : "";
		this.sql = COMPLETE.formatted(tables.task(), kept);
		this.orderedSql = COMPLETE_ORDERED.formatted(tables.task(),
				kept + ", " + OrderedKeys.handOff(tables, "done").stripTrailing() + "\n");
	}

	/**
	 * Deletes {@code task} and commits the current transaction.
	 * @return {@code false} when the claim was lost: nothing was committed, and the transaction must roll back
	 * @throws DataAccessException when the statement or the commit failed
	 */
	public boolean completeAndCommit(ClaimedTask task) {
		return completeAndCommit(task, null, (handedOff) -> {
		});
	}

	/**
	 * Deletes {@code task} and commits the current transaction; the next task of its ordering key, when it is due
	 * and of {@code handOffQueue}, is handed off to the task's session (claimed for it) and given to
	 * {@code handedOff} once committed, for the caller to run.
	 * @param handOffQueue the queue whose tasks the session may take now, or {@code null} for none
	 * @return {@code false} when the claim was lost: nothing was committed, and the transaction must roll back
	 * @throws DataAccessException when the statement or the commit failed
	 */
	public boolean completeAndCommit(ClaimedTask task, @Nullable String handOffQueue,
			Consumer<ClaimedTask> handedOff) {
		try {
			UUID session = Objects.requireNonNull(task.claimedBy(), "a completion needs its claim's session");
			HotStatements.Parameters fence = (statement, connection) -> {
				statement.setObject(1, task.id());
				statement.setObject(2, session);
				statement.setInt(3, task.attempt());
			};
			if (task.orderingKey() == null) {
				this.statements.execute(this.sql, fence);
				return true;
			}
			ClaimedTask next = this.statements.queryFirst(this.orderedSql, (statement, connection) -> {
				fence.bind(statement, connection);
				OrderedKeys.bindHandOff(statement, 4, handOffQueue, (handOffQueue != null) ? session : null);
			}, (rows) -> (rows.next() && rows.getObject(2) != null) ? ClaimRows.claimedTask(rows, 1) : null);
			if (next != null) {
				handedOff.accept(next);
			}
			return true;
		}
		catch (DataAccessException ex) {
			for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause()) {
				if (cause instanceof SQLException sql && CLAIM_LOST.equals(sql.getSQLState())) {
					return false;
				}
			}
			throw ex;
		}
	}

}
