package dev.taskqueue.internal.worker;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.taskqueue.TaskContext;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * Group commit: several tasks of a queue in one transaction of the application's transaction manager, each handler
 * in a savepoint of its own, their completions deleted with one fenced statement before the commit. A failing task
 * rolls back to its savepoint and is recorded as failed after the group commits; a group that cannot commit runs
 * its tasks again one by one; a group whose task overruns its timeout is given up by ending its database session
 * ({@link GroupGiveUp}).
 */
final class GroupCommit implements CompletionMode {

	private static final Log logger = LogFactory.getLog(GroupCommit.class);

	private final TaskRepository tasks;

	private final TaskInvoker invoker;

	private final OutcomeRecorder outcomes;

	private final TransactionOperations handlerTransactions;

	/** The data source of the handlers' DataSourceTransactionManager, which group commit needs; else null. */
	private final @Nullable DataSource groupDataSource;

	private final GroupGiveUp giveUp;

	/** Runs a task of a group that could not commit again, alone. */
	private final TransactionalRun alone;

	/** Writes the groups' completions, and says whether they may hand tasks to this worker. */
	private final Completer completer;

	/** The runs of ordering keys that this queue's groups take after a task handed off. */
	private final KeyRuns keyRuns = new KeyRuns();

	private final TaskHandlerMethod handler;

	private final QueueSettings settings;

	GroupCommit(TaskRepository tasks, TaskInvoker invoker, OutcomeRecorder outcomes,
			TransactionOperations handlerTransactions, @Nullable DataSource groupDataSource,
			TransactionOperations ownTransactions, TransactionalRun alone, Completer completer,
			TaskHandlerMethod handler, QueueSettings settings) {
		this.tasks = tasks;
		this.invoker = invoker;
		this.outcomes = outcomes;
		this.handlerTransactions = handlerTransactions;
		this.groupDataSource = groupDataSource;
		this.giveUp = new GroupGiveUp(tasks, outcomes, ownTransactions);
		this.alone = alone;
		this.completer = completer;
		this.handler = handler;
		this.settings = settings;
	}

	@Override
	public void run(ClaimedTask first, CompletionMode.Lane lane) {
		for (ClaimedTask again : runGroup(first, lane)) {
			this.alone.run(again, lane); // its group could not commit: alone, it fails or commits on its own
		}
	}

	/**
	 * A task ran past its timeout. Alone, it is counted as failed; in a group, the group is given up: its transaction
	 * is ended by ending its database backend, which frees its locks, and the tasks it had completed are released to
	 * run again (see {@link GroupGiveUp}).
	 */
	@Override
	public void timedOut(ClaimedTask task, Thread handlerThread, @Nullable CommitGroup group,
			CompletionMode.Lane lane) {
		if (group == null) {
			this.alone.timedOut(task, handlerThread, null, lane);
			return;
		}
		this.keyRuns.timedOut(group, task); // before the give-up lets the task be held again
		this.giveUp.timedOut(task, this.settings,
				OutcomeRecorder.timeout(task, this.settings, handlerThread), group, lane);
	}

	/** A claim read the tasks that follow the ones it handed off: the groups of those run them after them. */
	@Override
	public void claimed(ClaimResult result) {
		this.keyRuns.follow(result.following());
	}

	/** A task given back before it started leaves its key's run held. */
	@Override
	public void givenBack(ClaimedTask task) {
		this.keyRuns.forget(task.id());
	}

	@Override
	public int tasksPerThread() {
		return this.settings.groupSize();
	}

	@Override
	public String describe() {
		return ", group commit of up to " + this.settings.groupSize() + " tasks or "
				+ this.settings.groupMaxDelay().toMillis() + " ms";
	}

	/**
	 * Runs {@code first} and the tasks {@code steps} hands out after it in one transaction of the application's
	 * transaction manager, each handler in a savepoint, and deletes the completed tasks with one fenced statement
	 * before the commit. Completions are reported, and failures and dead letters recorded, once the group has
	 * committed. When the transaction fails, its tasks, still claimed, are to run again one by one, so that a task
	 * whose work cannot commit fails alone.
	 * @return the tasks of the group that the caller must run again, each in a transaction of its own; they are
	 * not settled yet
	 */
	private List<ClaimedTask> runGroup(ClaimedTask first, CompletionMode.Lane steps) {
		List<ClaimedTask> runAlone = new ArrayList<>();
		CommitGroup group = new CommitGroup();
		group.current = first;
		Deque<ClaimedTask> run = new ArrayDeque<>(); // the tasks of the last task's key that may follow it (KeyRuns)
		List<ClaimedTask> leftHeadless = new ArrayList<>(); // completed heads, for the claim loop once committed
		long started = System.nanoTime();
		RuntimeException commitFailure = null;
		CompletionMode.CommitWatch commit = new CompletionMode.CommitWatch();
		try {
			this.handlerTransactions.executeWithoutResult((status) -> {
				commit.watch();
				group.session = this.giveUp.identify(groupDataSource());
				for (ClaimedTask task = first; task != null; task = next(group, run, steps, started)) {
					runInSavepoint(task, status, steps, group, run);
				}
				completeAll(group, this.completer.mayHandOff(this.handler.queue()), leftHeadless);
			});
		}
		catch (RuntimeException | Error ex) {
			if (group.givenUp) {
				if (!group.released) {
					// Ending the backend failed, so the group's tasks were left claimed until this thread came back.
					this.outcomes.release(GroupGiveUp.claimedCompleted(group, group.entries()));
					this.giveUp.settleAfterRollback(group, group.entries(), this.settings, steps);
				}
				return runAlone;
			}
			if (commit.committed()) {
				// An after-commit callback threw: the group did commit, so its tasks must not run again.
				logger.warn("A group of " + group.size() + " tasks on queue '" + this.handler.queue() + "' committed, but "
						+ "an after-commit callback of its transaction threw: " + ErrorText.summary(ex), ex);
			}
			else {
				// An Error too: the group's tasks are still claimed and must each get an outcome.
				commitFailure = (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
			}
		}
		if (commitFailure instanceof ClaimsLostException lost) {
			// A task cancelled after its handler returned lost its claim to the cancel: it is not run again.
			group.entries().stream().filter((entry) -> lost.ids.contains(entry.task().id()))
				.forEach((entry) -> this.outcomes.wasCancelled(entry.task()));
			if (group.size() > 1) {
				// At REPEATABLE READ or SERIALIZABLE the group's snapshot may predate the claim of a task it took
				// later, whose fence then fails although the claim holds: each task's own completion tells.
				logger.info(lost.getMessage() + " on queue '" + this.handler.queue() + "'; the group rolled back and its "
						+ group.size() + " tasks run again one by one, each completion fenced on its own");
			}
		}
		else if (commitFailure != null && group.size() > 1) {
			// Its tasks are still claimed: each runs again alone, so that a task that fails the commit fails alone.
			// A serialization failure is routine on serializable databases: not worth a warning.
			String message = "A group of " + group.size() + " tasks on queue '" + this.handler.queue() + "' could not "
					+ "commit; running them one by one: " + ErrorText.summary(commitFailure);
			if (SerializationRetry.isSerializationFailure(commitFailure)) {
				logger.info(message);
			}
			else {
				logger.warn(message);
			}
		}
		if (commitFailure == null && !leftHeadless.isEmpty()) {
			this.completer.leftHeadless(leftHeadless); // for the claim loop to hand off their keys' next tasks
		}
		if (group.current != null && group.claimed(group.current)) { // taken, but not run
			runAlone.add(group.current);
		}
		for (CommitGroup.Entry entry : group.entries()) {
			// A task that followed its key's head in the group was never claimed: it is not settled, and a rollback
			// leaves it held again, to run after its head.
			boolean followed = !group.claimed(entry.task());
			if (commitFailure == null || (!entry.succeeded() && !followed)) {
				this.outcomes.recorded(entry, this.settings);
			}
			else if (followed) {
				continue;
			}
			else if (commitFailure instanceof ClaimsLostException lost && lost.ids.contains(entry.task().id())
					&& group.size() == 1) {
				this.outcomes.claimLost(entry.task(), entry.context());
			}
			else if (group.size() > 1) {
				runAlone.add(entry.task());
				continue;
			}
			else {
				this.outcomes.failed(entry.task(), entry.context(), this.settings, commitFailure,
						entry.duration());
			}
			if (!followed) {
				steps.settled(entry.task());
			}
		}
		return runAlone;
	}

	/** The next task of the group: the next of its key's run (KeyRuns), else one the queue's thread takes. */
	private @Nullable ClaimedTask next(CommitGroup group, Deque<ClaimedTask> run, CompletionMode.Lane steps,
			long started) {
		// Most groups run no key's run: only then ask whether the worker may take the queue's tasks (a set lookup).
		ClaimedTask following = run.isEmpty() ? null : this.keyRuns.next(group, run, this.settings, started,
				steps.typicalHandlerNanos(), this.completer.mayHandOff(this.handler.queue()));
		return (following != null) ? following : steps.nextInGroup(group.size(), started);
	}

	private void runInSavepoint(ClaimedTask task, TransactionStatus status, CompletionMode.Lane steps,
			CommitGroup group, Deque<ClaimedTask> run) {
		group.current = task;
		this.keyRuns.taken(group, run, task);
		TaskContext context = this.invoker.handlerContext(task);
		if (this.outcomes.isCancelled(task)) { // cancelled before it started: recorded as such after the group
			group.add(new CommitGroup.Entry(task, context, new Cancellations.Cancelled(), Duration.ZERO, false));
			group.current = null;
			run.clear();
			return;
		}
		// Sent to the dead letters after the group, not on the group's connection, where a rollback would undo it.
		Object payload = this.invoker.prepare(task, this.handler, this.settings, context,
				(reason) -> group.add(new CommitGroup.Entry(task, context, reason, Duration.ZERO, true)));
		if (payload == TaskInvoker.NOT_RUNNABLE) {
			group.current = null;
			run.clear(); // its key's run ends
			return;
		}
		TaskConnectionHolder connection = TaskConnectionHolder.bindFor(groupDataSource());
		List<TransactionSynchronization> synchronizations = TaskSynchronizations.current();
		steps.begin(task, group);
		long start = System.nanoTime();
		Throwable failure = null;
		try {
			this.invoker.invoke(this.handler, payload, context, task);
			if (this.outcomes.isCancelled(task)) {
				throw new Cancellations.Cancelled(); // its savepoint rolls back; the group's other tasks commit
			}
			String result = this.invoker.resultJson(context);
			if (connection.isRollbackOnly() || status.isRollbackOnly()) {
				// A participating transaction failed: only this task's work is rolled back, not its group's.
				throw new UnexpectedRollbackException(
						"Transaction rolled back because it has been marked as rollback-only");
			}
			if (connection.isTransactionFailed()) {
				throw new UnexpectedRollbackException("Transaction rolled back because a statement of the handler "
						+ "failed and the handler went on (caught the exception)");
			}
			if (result != null) {
				// In the task's savepoint, on the group's connection: it commits with the group's completions.
				this.completer.keepResult(task, result);
			}
		}
		catch (Throwable ex) {
			failure = TaskInvoker.unwrap(ex);
		}
		finally {
			connection.unbind(groupDataSource());
			TaskInvoker.ended(context);
		}
		long nanos = System.nanoTime() - start;
		if (!steps.end(task)) {
			group.awaitEnded(); // the connection must stay ours until its backend has been ended
			throw new GroupGivenUp();
		}
		steps.handled(nanos);
		// The task's entry first: should the rollback fail, the group fails and the task with it.
		group.add(new CommitGroup.Entry(task, context, failure, Duration.ofNanos(nanos), false));
		group.current = null;
		if (failure != null) {
			run.clear(); // its key's run ends
			try {
				connection.rollBack();
			}
			catch (SQLException ex) {
				throw new CannotCreateTransactionException("Could not roll back to the savepoint of a failed task", ex);
			}
			TaskSynchronizations.rollBackSince(synchronizations);
		}
	}

	/**
	 * Deletes the group's completed tasks with one statement per claiming session, fenced like one by one; when a
	 * claim was lost, the whole group rolls back, since that task's work cannot be told apart any more. When the
	 * worker may hand the next tasks of their ordering keys off ({@code handOff}), the deletes leave them held and
	 * the completed heads go to {@code leftHeadless}, for the claim loop once the group has committed; otherwise they
	 * become heads. The tasks of key runs are settled after them ({@link KeyRuns#settle}).
	 */
	private void completeAll(CommitGroup group, boolean handOff, List<ClaimedTask> leftHeadless) {
		Map<UUID, List<ClaimedTask>> bySession = CommitGroup.completedTasks(group.entries()).stream()
			.filter(group::claimed)
			.collect(Collectors.groupingBy(ClaimedTask::claimedBy));
		Set<UUID> lost = new HashSet<>();
		bySession.forEach((session, completed) -> {
			Set<UUID> deleted = this.completer.completeGroup(session, completed, handOff, leftHeadless);
			completed.stream().map(ClaimedTask::id).filter((id) -> !deleted.contains(id)).forEach(lost::add);
		});
		if (!group.unclaimed.isEmpty()) { // runs of keys: without a hand-off their heads' next tasks were promoted
			Set<String> failed = handOff ? KeyRuns.settle(this.tasks, group, lost) : Set.of();
			lost.addAll(handOff ? Set.of() : group.unclaimed);
			leftHeadless.removeIf((task) -> failed.contains(task.orderingKey()));
		}
		if (!lost.isEmpty()) {
			throw new ClaimsLostException(lost);
		}
	}

	/** Rolls back a group in which tasks lost their claims. */
	private static final class ClaimsLostException extends RuntimeException {

		private final Set<UUID> ids;

		ClaimsLostException(Set<UUID> ids) {
			super(ids.size() + " tasks of the group lost their claims while it ran");
			this.ids = ids;
		}

	}

	/** Leaves the transaction of a group that was given up. */
	private static final class GroupGivenUp extends RuntimeException {

		GroupGivenUp() {
			super("group given up", null, false, false);
		}

	}

	/** The data source of the handlers' transaction manager, which group commit needs. */
	private DataSource groupDataSource() {
		DataSource dataSource = this.groupDataSource;
		Assert.state(dataSource != null, "Group commit needs a DataSourceTransactionManager");
		return Objects.requireNonNull(dataSource);
	}

}
