package dev.taskqueue.internal.worker;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.AttemptLog;
import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.OrderedKeys;
import dev.taskqueue.internal.jdbc.TaskTables;

import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The worker's completer: writes the fenced completions the completion modes ask for, and owns the hand-off of
 * ordered keys (docs/ordered-keys.md), so that the modes complete a task without knowing keys exist.
 * <p>
 * A completed task with an ordering key frees its key's next task. While this worker claims for the task's queue
 * (running, not paused) and the queue has no cluster-wide limit, which a hand-off would bypass, the completion hands
 * that task to this worker instead of making it a head for any claim: a completion written in the worker's own
 * transaction claims it in the same statement ({@link #completeAll}); one written in a handler's transaction, whose
 * commit must not wait for a claim, deletes the head only and, once committed, leaves the key to the claim loop's next
 * claim of the queue ({@link Outcome.KeyLeftHeadless} in the {@link Mailbox}). {@link #mayHandOff} is that gate, asked
 * as each completion is written, as a pause may have come since the task started.
 * <p>
 * A completion sent with its transaction's commit in one round trip runs the statement of {@link CompletionCommit},
 * nested here; the other completions are {@link TaskRepository}'s.
 */
final class Completer {

	private final TaskRepository tasks;

	/** Completes a task with its transaction's commit in one round trip, when the transactions allow it. */
	private final @Nullable CompletionCommit completionCommit;

	/** Where the keys left headless wait for the claim loop. */
	private final Mailbox mailbox;

	/** The settings of the queues this worker runs, by name; {@code null} for another queue. */
	private final Function<String, @Nullable QueueSettings> queues;

	/** Whether the worker claims for a queue now: it runs, and the queue is not paused. */
	private final Predicate<String> claiming;

	/** Runs tasks of one queue handed to this worker by a completion that committed. */
	private final BiConsumer<String, List<ClaimedTask>> run;

	/**
	 * @param queues the settings of the queues this worker runs, by name
	 * @param claiming whether the worker claims for a queue now
	 * @param run runs tasks of one queue that a completion handed to this worker
	 */
	Completer(TaskRepository tasks, @Nullable CompletionCommit completionCommit, Mailbox mailbox,
			Function<String, @Nullable QueueSettings> queues, Predicate<String> claiming,
			BiConsumer<String, List<ClaimedTask>> run) {
		this.tasks = tasks;
		this.completionCommit = completionCommit;
		this.mailbox = mailbox;
		this.queues = queues;
		this.claiming = claiming;
		this.run = run;
	}

	/**
	 * The completer of tasks run outside a worker, which no completion can hand a task to: each completion makes
	 * the next task of its key a head for any claim.
	 */
	static Completer outsideWorker(TaskRepository tasks, @Nullable CompletionCommit completionCommit,
			Mailbox mailbox) {
		return new Completer(tasks, completionCommit, mailbox, (queue) -> null, (queue) -> false, (queue, given) -> {
			throw new IllegalStateException("Nothing is handed off outside a worker");
		});
	}

	/**
	 * Whether a completion of a task of {@code queue} may hand its key's next task to this worker now: the worker
	 * runs the queue, claims for it, and the queue has no cluster-wide limit.
	 */
	boolean mayHandOff(String queue) {
		QueueSettings settings = this.queues.apply(queue);
		return settings != null && !settings.limits().any() && this.claiming.test(queue);
	}

	/**
	 * Whether completing {@code task} in its handler's transaction may leave something to do once committed (see
	 * {@link #complete}): only a task with an ordering key does, its key's hand-off.
	 */
	static boolean mayLeaveWork(ClaimedTask task) {
		return task.orderingKey() != null;
	}

	/**
	 * Whether settling {@code task} may have made another task of its queue ready with no NOTIFY to say so: the
	 * completion or the dead letter of a task with an ordering key gives its key a new head, or leaves it to a claim.
	 */
	static boolean readiesOthers(ClaimedTask task) {
		return task.orderingKey() != null;
	}

	/**
	 * Completes {@code task} in its handler's transaction {@code status}: with the commit in one round trip when the
	 * transaction is one of its own whose synchronizations this commit runs ({@link CompletionCommit}), registered
	 * now, after the handler's own callbacks, to run after them; else with a fenced delete now. What the completion
	 * leaves to do once it has committed goes to {@code afterwards}, for the caller to run after it has told the
	 * task's outcome (and, as an attempt that rolls back leaves nothing, to forget when it runs the task again).
	 * @return {@code false} when the claim was lost (the delete now): the transaction must roll back. A claim found
	 * lost at commit throws {@link ClaimLostAtCommit} from the commit.
	 */
	boolean complete(ClaimedTask task, TransactionStatus status, Consumer<Runnable> afterwards) {
		CompletionCommit completion = (status.isNewTransaction() && !status.hasSavepoint()
				&& status instanceof DefaultTransactionStatus transaction && transaction.isNewSynchronization())
						? this.completionCommit : null;
		if (completion == null) {
			return this.tasks.complete(task);
		}
		TransactionSynchronizationManager.registerSynchronization(new AtCommit(completion, task, afterwards));
		return true;
	}

	/**
	 * Keeps {@code json}, the result of {@code task}'s handler, in the current transaction, which goes on to complete
	 * the task: the result commits with the completion or not at all. Only for a handler that gave a result, so a
	 * completion without one runs the same statements as before results existed.
	 * @return {@code false} when the claim was lost: the transaction must roll back
	 */
	boolean keepResult(ClaimedTask task, String json) {
		return this.tasks.keepResult(task, json);
	}

	/**
	 * Deletes the completed {@code tasks} of one queue, all claimed by {@code session}, with one statement in the
	 * current transaction of the worker's own, fenced like one by one; it also claims for {@code session} the next
	 * tasks of their keys when it may hand them off: the caller gives those to {@link #run} once committed.
	 * @return the ids of the tasks deleted (those missing had lost their claim), and the tasks handed off
	 */
	ClaimResult completeAll(UUID session, List<ClaimedTask> tasks) {
		return this.tasks.completeAll(session, tasks, oneQueueThatMayHandOff(tasks));
	}

	private @Nullable String oneQueueThatMayHandOff(List<ClaimedTask> completed) {
		String name = completed.isEmpty() ? null : completed.get(0).queue();
		for (ClaimedTask task : completed) {
			if (!task.queue().equals(name)) {
				return null;
			}
		}
		return (name != null && mayHandOff(name)) ? name : null;
	}

	/**
	 * Deletes the completed {@code tasks} of a group, all claimed by {@code session}, with one statement in the group's
	 * transaction. When {@code handOff}, the next tasks of their keys stay held, and those of {@code tasks} with a key
	 * go to {@code leftHeadless}, for {@link #leftHeadless} once the group has committed.
	 * @return the ids of the tasks deleted; those missing had lost their claim
	 */
	Set<UUID> completeGroup(UUID session, List<ClaimedTask> tasks, boolean handOff,
			List<ClaimedTask> leftHeadless) {
		if (!handOff) {
			return this.tasks.completeAll(session, tasks, null).completed();
		}
		Set<UUID> deleted = this.tasks.completeAllLeavingHeads(session, tasks);
		tasks.stream().filter((task) -> task.orderingKey() != null).forEach(leftHeadless::add);
		return deleted;
	}

	/** Runs {@code tasks}, handed to this worker by completions that have committed. */
	void run(List<ClaimedTask> tasks) {
		if (tasks.isEmpty()) {
			return; // the common case: a completion of a task without an ordering key, after every task
		}
		// Of one queue (see completeAll): submitted together, so that threads start once for all of them.
		tasks.stream()
			.collect(Collectors.groupingBy(ClaimedTask::queue, LinkedHashMap::new, Collectors.toList()))
			.forEach(this.run);
	}

	/**
	 * The completions of {@code completed}, all of one queue, deleted them and committed, leaving the next tasks of
	 * their keys held: the claim loop's next claim of the queue hands them off.
	 */
	void leftHeadless(List<ClaimedTask> completed) {
		this.mailbox.post(keysOf(completed));
	}

	/** The keys of {@code heads}, deleted by one completion and all of one queue. */
	static List<Outcome.KeyLeftHeadless> keysOf(List<ClaimedTask> heads) {
		return heads.stream()
			.map((head) -> new Outcome.KeyLeftHeadless(head.queue(), Objects.requireNonNull(head.orderingKey())))
			.toList();
	}

	/**
	 * Completes a task as its handler's transaction commits, after every other before-commit callback, with the
	 * {@code DELETE} and the {@code COMMIT} in one round trip (see {@link CompletionCommit}). A lost claim throws
	 * {@link ClaimLostAtCommit}, which makes Spring roll the transaction back. A task whose key's next task the worker
	 * may take leaves that task held, and its key to the claim loop once the caller has told the outcome.
	 */
	private final class AtCommit implements TransactionSynchronization {

		private final CompletionCommit completion;

		private final ClaimedTask task;

		private final Consumer<Runnable> afterwards;

		AtCommit(CompletionCommit completion, ClaimedTask task, Consumer<Runnable> afterwards) {
			this.completion = completion;
			this.task = task;
			this.afterwards = afterwards;
		}

		@Override
		public int getOrder() {
			return Ordered.LOWEST_PRECEDENCE;
		}

		@Override
		public void beforeCommit(boolean readOnly) {
			// Asked now, as a pause may have come since; only a task with an ordering key has a next task to hand off,
			// and when it may not, the completion makes that task the head for any claim.
			boolean keyed = this.task.orderingKey() != null;
			boolean handOff = keyed && mayHandOff(this.task.queue());
			if (!((keyed && !handOff) ? this.completion.completePromotingAndCommit(this.task)
					: this.completion.completeAndCommit(this.task))) {
				throw new ClaimLostAtCommit();
			}
			if (handOff) {
				ClaimedTask completed = this.task;
				this.afterwards.accept(() -> leftHeadless(List.of(completed)));
			}
		}

	}

	/** The task's claim was lost before its transaction could commit: the transaction rolls back. */
	static final class ClaimLostAtCommit extends RuntimeException {

		ClaimLostAtCommit() {
			super("The task's claim was lost before its completion", null, false, false);
		}

	}

	/**
	 * Deletes a completed task and commits the transaction it ran in, in one round trip: the fenced {@code DELETE} and
	 * {@code COMMIT} go to PostgreSQL together, so a task of a handler transaction costs one round trip less than a
	 * {@code DELETE} followed by Spring's commit. PostgreSQL's JDBC driver then finds the transaction ended and its
	 * {@code commit()} sends nothing.
	 * <p>
	 * Only for a transaction of a {@code DataSourceTransactionManager} over this data source, run last among the
	 * transaction's before-commit callbacks: nothing of the transaction may run after its commit.
	 */
	static class CompletionCommit {

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

		/** {@link #sql} that also makes the next task of the completed task's ordering key its head. */
		private final String promotingSql;

		/**
		 * @param dataSource the data source of the handlers' transaction manager, which is TaskQueue's
		 * @param tables the table names
		 * @param history whether completions also record the task in the history table
		 */
		public CompletionCommit(DataSource dataSource, TaskTables tables, boolean history) {
			this.statements = new HotStatements(dataSource, new JdbcTemplate(dataSource).getExceptionTranslator());
			String kept = history ? KEEP_IN_HISTORY.formatted(tables.history(), AttemptLog.completed("done", tables))
					: "";
			this.sql = COMPLETE.formatted(tables.task(), kept);
			this.promotingSql = COMPLETE.formatted(tables.task(),
					kept + ", " + OrderedKeys.promote(tables, "done").stripTrailing() + "\n");
		}

		/**
		 * Deletes {@code task} and commits the current transaction. The next task of an ordering key stays held, for
		 * {@link TaskRepository#handOffAndClaim} once the commit is done.
		 * @return {@code false} when the claim was lost: nothing was committed, and the transaction must roll back
		 * @throws DataAccessException when the statement or the commit failed
		 */
		public boolean completeAndCommit(ClaimedTask task) {
			return complete(task, this.sql);
		}

		/**
		 * Deletes {@code task}, which has an ordering key, and commits the current transaction: the next task of its
		 * key becomes the head, for any claim.
		 * @return {@code false} when the claim was lost: nothing was committed, and the transaction must roll back
		 * @throws DataAccessException when the statement or the commit failed
		 */
		public boolean completePromotingAndCommit(ClaimedTask task) {
			return complete(task, this.promotingSql);
		}

		private boolean complete(ClaimedTask task, String sql) {
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

}
