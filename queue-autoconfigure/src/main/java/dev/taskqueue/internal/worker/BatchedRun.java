package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

import dev.taskqueue.TaskContext;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionOperations;

/**
 * A task of a {@code BATCHED} queue: its handler runs without a transaction of TaskQueue's, and its completion waits
 * in the {@link Mailbox} to be deleted with others by one statement, the claim loop's next claim or the
 * {@link CompletionFlusher}'s. A failure is recorded at once, as in the other modes.
 */
final class BatchedRun implements CompletionMode {

	private static final Log logger = LogFactory.getLog(BatchedRun.class);

	private final TaskInvoker invoker;

	private final OutcomeRecorder outcomes;

	private final Mailbox mailbox;

	/** Writes the completions of the tasks whose handlers gave a result. */
	private final Completer completer;

	private final TransactionOperations ownTransactions;

	private final TaskHandlerMethod handler;

	private final QueueSettings settings;

	BatchedRun(TaskInvoker invoker, OutcomeRecorder outcomes, Mailbox mailbox, Completer completer,
			TransactionOperations ownTransactions, TaskHandlerMethod handler, QueueSettings settings) {
		this.completer = completer;
		this.ownTransactions = ownTransactions;
		this.invoker = invoker;
		this.outcomes = outcomes;
		this.mailbox = mailbox;
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
		return ", batched completion";
	}

	/** The claims of a {@code BATCHED} queue carry the deletes waiting in the mailbox. */
	@Override
	public boolean claimsCarryDeletes() {
		return true;
	}

	private void run(ClaimedTask task, BooleanSupplier takeOutcome) {
		this.outcomes.attempt(task, this.invoker, this.handler, this.settings,
				(context, payload) -> run(task, context, payload, takeOutcome));
	}

	private void run(ClaimedTask task, TaskContext context, Object payload, BooleanSupplier takeOutcome) {
		long start = System.nanoTime();
		String result;
		try {
			this.invoker.invoke(this.handler, payload, context, task);
			result = this.invoker.resultJson(context);
		}
		catch (Throwable ex) {
			if (takeOutcome.getAsBoolean()) {
				this.outcomes.failed(task, context, this.settings, TaskInvoker.unwrap(ex),
						Duration.ofNanos(System.nanoTime() - start));
			}
			return;
		}
		if (!takeOutcome.getAsBoolean()) {
			return; // it ran past its timeout, which has recorded it as failed
		}
		if (this.outcomes.isCancelled(task)) {
			this.outcomes.cancelled(task, context, Duration.ofNanos(System.nanoTime() - start));
			return; // nothing is completed, so its result is not kept
		}
		if (result != null) {
			completeWithResult(task, context, result, Duration.ofNanos(System.nanoTime() - start));
			return;
		}
		try {
			this.mailbox.post(new Outcome.DeletePending(task, context, Duration.ofNanos(System.nanoTime() - start)));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			logger.warn(OutcomeRecorder.describe(task) + " finished but was interrupted before its completion was "
					+ "queued; it runs again when this session ends");
		}
	}

	/**
	 * Completes {@code task}, whose handler gave a result, in a transaction of its own: the result and the fenced
	 * delete commit together, as in the other modes. Such a completion does not wait for others in the mailbox; those
	 * of handlers that give no result still do.
	 */
	private void completeWithResult(ClaimedTask task, TaskContext context, String result, Duration duration) {
		ClaimResult written;
		try {
			written = this.ownTransactions.execute((status) -> {
				if (!this.completer.keepResult(task, result)) {
					return null;
				}
				ClaimResult completion = this.completer.completeAll(Objects.requireNonNull(task.claimedBy()),
						List.of(task));
				if (!completion.completed().contains(task.id())) {
					// The claim ended after the result was inserted (a cancel deleted the task, say): keep neither.
					status.setRollbackOnly();
				}
				return completion;
			});
		}
		catch (RuntimeException ex) {
			// Nothing was written: the attempt counts as failed, and the task runs again after its backoff.
			this.outcomes.failed(task, context, this.settings, ex, duration);
			return;
		}
		if (written != null && written.completed().contains(task.id())) {
			this.outcomes.completed(context, duration);
			this.completer.run(written.handedOff());
		}
		else {
			this.outcomes.claimLost(task, context);
		}
	}

}
