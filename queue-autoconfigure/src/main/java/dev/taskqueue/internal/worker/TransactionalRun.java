package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import dev.taskqueue.TaskContext;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.jdbc.ClaimedTask;
import dev.taskqueue.internal.jdbc.CompletionCommit;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionOperations;

/**
 * A task of a {@code TRANSACTIONAL} queue without group commit: its handler and its fenced completion in one
 * transaction of the application's transaction manager, the completion sent with the commit when it can be
 * ({@link CompletionCommit}). A serialization failure runs the whole transaction again, handler included; the key
 * of a task with an ordering key goes to the claim loop's hand-off once the transaction has committed.
 */
final class TransactionalRun implements CompletionMode {

	private static final Log logger = LogFactory.getLog(TransactionalRun.class);

	private final TaskRepository tasks;

	private final TransactionOperations handlerTransactions;

	private final OutcomeRecorder outcomes;

	private final TaskInvoker invoker;

	/** Completes a task with its transaction's commit in one round trip, when the transactions allow it. */
	private final @Nullable CompletionCommit completionCommit;

	private final SerializationRetry retry;

	private final TaskHandlerMethod handler;

	private final QueueSettings settings;

	TransactionalRun(TaskRepository tasks, TransactionOperations handlerTransactions, OutcomeRecorder outcomes,
			TaskInvoker invoker, @Nullable CompletionCommit completionCommit, SerializationRetry retry,
			TaskHandlerMethod handler, QueueSettings settings) {
		this.tasks = tasks;
		this.handlerTransactions = handlerTransactions;
		this.outcomes = outcomes;
		this.invoker = invoker;
		this.completionCommit = completionCommit;
		this.retry = retry;
		this.handler = handler;
		this.settings = settings;
	}

	@Override
	public void run(ClaimedTask first, HandlerLane lane) {
		CompletionMode.alone(first, lane, (takeOutcome) -> run(first, takeOutcome, lane.handOffs()));
	}

	@Override
	public void timedOut(ClaimedTask task, Thread handlerThread, @Nullable CommitGroup group, HandlerLane lane) {
		this.outcomes.timedOut(task, this.settings, handlerThread);
		lane.settled(task);
	}

	@Override
	public String describe() {
		return "";
	}

	/**
	 * Runs {@code task} in a transaction with its completion. Before it records an outcome it asks
	 * {@code takeOutcome}, which says {@code false} when the task ran past its timeout and the timeout has recorded
	 * it; the handler's work then rolls back, so each attempt has exactly one outcome. Its completion may hand the
	 * next task of its ordering key off to {@code handOffs} (see {@link CompletionCommit}).
	 */
	void run(ClaimedTask task, BooleanSupplier takeOutcome, HandOffs handOffs) {
		this.outcomes.attempt(task, this.invoker, this.handler, this.settings,
				(context, payload) -> run(task, context, payload, takeOutcome, handOffs));
	}

	private void run(ClaimedTask task, TaskContext context, Object payload, BooleanSupplier takeOutcome,
			HandOffs handOffs) {
		TaskHandlerMethod handler = this.handler;
		QueueSettings settings = this.settings;
		long start = System.nanoTime();
		Boolean completed = null;
		List<ClaimedTask> next = new ArrayList<>(1); // its key left to the claim loop, once the commit is done
		for (int attempt = 1;; attempt++) {
			CommitWatch commit = new CommitWatch();
			next.clear(); // an attempt that rolled back deleted nothing
			try {
				completed = runOnce(task, handler, context, payload, takeOutcome, commit, handOffs, next);
				break;
			}
			catch (Throwable ex) {
				// A serialization failure rolled the whole transaction back: the handler runs again, in a new one.
				if (!commit.committed() && this.retry.retryAfter("handler", ex, attempt)) {
					continue;
				}
				failed(task, settings, context, takeOutcome, start, commit, ex);
				if (commit.committed()) {
					handOffs.leftHeadless(next);
				}
				return;
			}
		}
		if (completed == null) {
			return;
		}
		if (Boolean.TRUE.equals(completed)) {
			this.outcomes.completed(context, Duration.ofNanos(System.nanoTime() - start));
			handOffs.leftHeadless(next);
		}
		else {
			this.outcomes.claimLost(task, context);
		}
	}

	private @Nullable Boolean runOnce(ClaimedTask task, TaskHandlerMethod handler, TaskContext context,
			Object payload, BooleanSupplier takeOutcome, CommitWatch commit, HandOffs handOffs,
			List<ClaimedTask> next) {
		return this.handlerTransactions.execute((status) -> {
			commit.watch();
			this.invoker.invoke(handler, payload, context, task);
			if (!takeOutcome.getAsBoolean()) {
				status.setRollbackOnly(); // it ran past its timeout, which has recorded it as failed
				return null;
			}
			CompletionCommit completion = completionAtCommit(status);
			if (completion != null) {
				CompleteAtCommit.register(completion, task, handOffs, next::add);
				return true;
			}
			if (this.tasks.complete(task)) {
				return true;
			}
			status.setRollbackOnly();
			return false;
		});
	}

	private void failed(ClaimedTask task, QueueSettings settings, TaskContext context, BooleanSupplier takeOutcome,
			long start, CommitWatch commit, Throwable ex) {
		Duration duration = Duration.ofNanos(System.nanoTime() - start);
		if (ex instanceof CompleteAtCommit.ClaimLostAtCommit) {
			this.outcomes.claimLost(task, context);
		}
		else if (commit.committed()) {
			logger.warn(OutcomeRecorder.describe(task) + " completed, but an after-commit callback of its "
					+ "transaction threw: " + ErrorText.summary(ex), ex);
			this.outcomes.completed(context, duration);
		}
		else if (takeOutcome.getAsBoolean()) {
			this.outcomes.failed(task, context, settings, TaskInvoker.unwrap(ex), duration);
		}
	}

	/**
	 * What completes the task with the commit, if it can go with it: only in a transaction of its own (not one
	 * joined, nor a savepoint) whose synchronizations this commit runs, so that its commit is the one the
	 * completion sends.
	 */
	private @Nullable CompletionCommit completionAtCommit(TransactionStatus status) {
		return (status.isNewTransaction() && !status.hasSavepoint()
				&& status instanceof DefaultTransactionStatus transaction && transaction.isNewSynchronization())
						? this.completionCommit : null;
	}

}
