package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import dev.taskqueue.TaskContext;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionOperations;

/**
 * A task of a {@code TRANSACTIONAL} queue without group commit: its handler and its fenced completion in one
 * transaction of the application's transaction manager, written by the {@link Completer} (with the commit, when it
 * can be). A serialization failure runs the whole transaction again, handler included.
 */
final class TransactionalRun implements CompletionMode {

	private static final Log logger = LogFactory.getLog(TransactionalRun.class);

	private final TransactionOperations handlerTransactions;

	private final OutcomeRecorder outcomes;

	private final TaskInvoker invoker;

	/** Writes the task's fenced completion in its transaction. */
	private final Completer completer;

	private final SerializationRetry retry;

	private final TaskHandlerMethod handler;

	private final QueueSettings settings;

	TransactionalRun(TransactionOperations handlerTransactions, OutcomeRecorder outcomes, TaskInvoker invoker,
			Completer completer, SerializationRetry retry, TaskHandlerMethod handler, QueueSettings settings) {
		this.handlerTransactions = handlerTransactions;
		this.outcomes = outcomes;
		this.invoker = invoker;
		this.completer = completer;
		this.retry = retry;
		this.handler = handler;
		this.settings = settings;
	}

	@Override
	public void run(ClaimedTask first, CompletionMode.Lane lane) {
		CompletionMode.alone(first, lane, (takeOutcome) -> run(first, takeOutcome));
	}

	@Override
	public void timedOut(ClaimedTask task, Thread handlerThread, @Nullable CommitGroup group,
			CompletionMode.Lane lane) {
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
	 * it; the handler's work then rolls back, so each attempt has exactly one outcome.
	 */
	void run(ClaimedTask task, BooleanSupplier takeOutcome) {
		this.outcomes.attempt(task, this.invoker, this.handler, this.settings,
				(context, payload) -> run(task, context, payload, takeOutcome));
	}

	private void run(ClaimedTask task, TaskContext context, Object payload, BooleanSupplier takeOutcome) {
		TaskHandlerMethod handler = this.handler;
		QueueSettings settings = this.settings;
		long start = System.nanoTime();
		Boolean completed = null;
		// What the completion leaves to do once it has committed and the outcome is told (see Completer#complete). The
		// Completer leaves something only for some tasks (Completer.mayLeaveWork), so the others, nearly all tasks,
		// get the empty list instead of one of their own.
		List<Runnable> afterwards = Completer.mayLeaveWork(task) ? new ArrayList<>(1) : List.of();
		for (int attempt = 1;; attempt++) {
			CompletionMode.CommitWatch commit = new CompletionMode.CommitWatch();
			if (!afterwards.isEmpty()) {
				afterwards.clear(); // an attempt that rolled back completed nothing
			}
			try {
				completed = runOnce(task, handler, context, payload, takeOutcome, commit, afterwards);
				break;
			}
			catch (Throwable ex) {
				// A serialization failure rolled the whole transaction back: the handler runs again, in a new one.
				if (!commit.committed() && this.retry.retryAfter("handler", ex, attempt)) {
					continue;
				}
				failed(task, settings, context, takeOutcome, start, commit, ex);
				if (commit.committed()) {
					afterwards.forEach(Runnable::run);
				}
				return;
			}
		}
		if (completed == null) {
			return;
		}
		if (Boolean.TRUE.equals(completed)) {
			this.outcomes.completed(context, Duration.ofNanos(System.nanoTime() - start));
			afterwards.forEach(Runnable::run);
		}
		else {
			this.outcomes.claimLost(task, context);
		}
	}

	private @Nullable Boolean runOnce(ClaimedTask task, TaskHandlerMethod handler, TaskContext context,
			Object payload, BooleanSupplier takeOutcome, CompletionMode.CommitWatch commit, List<Runnable> afterwards) {
		return this.handlerTransactions.execute((status) -> {
			commit.watch();
			context.result(null); // a run again after a serialization failure keeps only what it gives
			this.invoker.invoke(handler, payload, context, task);
			String result = this.invoker.resultJson(context); // may fail the attempt, as the handler may
			if (!takeOutcome.getAsBoolean()) {
				status.setRollbackOnly(); // it ran past its timeout, which has recorded it as failed
				return null;
			}
			if (this.outcomes.isCancelled(task)) {
				throw new Cancellations.Cancelled(); // rolls the handler's work (and its result) back
			}
			if ((result == null || this.completer.keepResult(task, result))
					&& this.completer.complete(task, status, afterwards::add)) {
				return true;
			}
			status.setRollbackOnly();
			return false;
		});
	}

	private void failed(ClaimedTask task, QueueSettings settings, TaskContext context, BooleanSupplier takeOutcome,
			long start, CompletionMode.CommitWatch commit, Throwable ex) {
		Duration duration = Duration.ofNanos(System.nanoTime() - start);
		if (ex instanceof Completer.ClaimLostAtCommit) {
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

}
