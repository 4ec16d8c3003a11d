package dev.taskqueue.internal.worker;

import java.sql.SQLException;
import java.util.Objects;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.AttemptLog;
import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.TaskTables;

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
class CompletionCommit {

	/** SQLSTATE of the fence: division by the number of rows deleted, 0 when the claim was lost. */
	private static final String CLAIM_LOST = "22012";

	// The fence must stop the COMMIT sent with it when the claim was lost: a failed statement aborts the
	// transaction, and PostgreSQL skips the rest of the pipeline, so the handler's work cannot commit.
	private static final String COMPLETE = """
			WITH done AS (DELETE FROM %1$s WHERE id = ? AND claimed_by IS NOT DISTINCT FROM ? AND attempt = ? RETURNING *)
			%2$sSELECT 1 / (SELECT count(*)::int FROM done);
			COMMIT""";

	// The history copies the attempt log (%2$s, AttemptLog.completed): NULL for a task that never failed.
	private static final String KEEP_IN_HISTORY = """
			, kept AS (INSERT INTO %1$s (id, queue, payload, priority, attempts, enqueued_at, completed_at, headers,
			                             unique_key, ordering_key, fairness_key, batch_id, attempt_log)
			    SELECT id, queue, payload, priority, attempt, enqueued_at, now(), headers, unique_key, ordering_key,
			           fairness_key, batch_id, %2$s FROM done
			    ON CONFLICT (id) DO UPDATE SET attempts = excluded.attempts, completed_at = excluded.completed_at,
			           attempt_log = excluded.attempt_log)
			""";

	private final HotStatements statements;

	private final String sql;

	/**
	 * @param dataSource the data source of the handlers' transaction manager, which is TaskQueue's
	 * @param tables the table names
	 * @param history whether completions also record the task in the history table
	 */
	public CompletionCommit(DataSource dataSource, TaskTables tables, boolean history) {
		this.statements = new HotStatements(dataSource, new JdbcTemplate(dataSource).getExceptionTranslator());
		this.sql = statement(tables, history, "");
	}

	/**
	 * The statement that deletes a task and commits, keeping it in the history when {@code history}, with
	 * {@code more} CTEs on {@code done}: none here, the promotion of the key's next task in {@link KeyStatements}.
	 */
	static String statement(TaskTables tables, boolean history, String more) {
		String kept = history ? KEEP_IN_HISTORY.formatted(tables.history(), AttemptLog.completed("done", tables)) : "";
		return COMPLETE.formatted(tables.task(), kept + more);
	}

	/**
	 * Deletes {@code task} and commits the current transaction. The next task of an ordering key stays held: for
	 * {@link TaskRepository#handOffAndClaim} once the commit is done, or use
	 * {@link TaskRepository#completePromotingAndCommit}.
	 * @return {@code false} when the claim was lost: nothing was committed, and the transaction must roll back
	 * @throws DataAccessException when the statement or the commit failed
	 */
	public boolean completeAndCommit(ClaimedTask task) {
		return completeAndCommit(task, this.sql);
	}

	/** {@link #completeAndCommit(ClaimedTask)} with {@code sql}, a {@link #statement} of this data source's tables. */
	boolean completeAndCommit(ClaimedTask task, String sql) {
		try {
			UUID session = Objects.requireNonNull(task.claimedBy(), "a completion needs its claim's session");
			this.statements.execute(sql, (statement, connection) -> {
				statement.setObject(1, task.id());
				statement.setObject(2, session);
				statement.setInt(3, task.attempt());
			});
			return true;
		}
		catch (DataAccessException ex) {
			for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause()) {
				if (cause instanceof SQLException failure && CLAIM_LOST.equals(failure.getSQLState())) {
					return false;
				}
			}
			throw ex;
		}
	}

}
