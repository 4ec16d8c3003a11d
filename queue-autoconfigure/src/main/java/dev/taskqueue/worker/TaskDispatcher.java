package dev.taskqueue.worker;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.handler.TaskHandlerMethod;
import dev.taskqueue.jdbc.ClaimedTask;
import dev.taskqueue.jdbc.TaskRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.transaction.support.TransactionOperations;

/**
 * Runs one claimed task: the handler and the fenced completion in one transaction of the application's
 * transaction manager, so the handler's database work commits exactly when the task is acknowledged. When the
 * handler fails, the transaction rolls back and the outcome (retry later, or dead letter) is recorded in a
 * transaction of its own. An outcome that cannot be recorded (the database is away) is kept and tried again.
 */
public class TaskDispatcher {

	private static final Log logger = LogFactory.getLog(TaskDispatcher.class);

	private final TaskRepository tasks;

	private final PayloadReader payloads;

	private final TransactionOperations handlerTransactions;

	private final TransactionOperations ownTransactions;

	private final Queue<BooleanSupplier> unrecordedOutcomes = new ConcurrentLinkedQueue<>();

	/**
	 * @param tasks the task repository
	 * @param payloads reads payloads as the handler's type
	 * @param handlerTransactions transactions of the application's transaction manager, for handlers
	 * @param ownTransactions transactions for the worker's own bookkeeping
	 */
	public TaskDispatcher(TaskRepository tasks, PayloadReader payloads, TransactionOperations handlerTransactions,
			TransactionOperations ownTransactions) {
		this.tasks = tasks;
		this.payloads = payloads;
		this.handlerTransactions = handlerTransactions;
		this.ownTransactions = ownTransactions;
	}

	void run(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings) {
		if (task.attempt() > settings.maxAttempts()) {
			deadLetter(task, "Gave up after " + settings.maxAttempts() + " attempts; the last one ended without an "
					+ "outcome because its worker stopped or lost its session"
					+ ((task.lastError() != null) ? ". Error before that:\n" + task.lastError() : ""));
			return;
		}
		Object payload;
		try {
			payload = this.payloads.read(task.payload(), handler.payloadType());
		}
		catch (RuntimeException ex) {
			deadLetter(task, "Payload cannot be read as " + handler.payloadType().getTypeName() + " for "
					+ handler.describe() + ": " + ex.getMessage());
			return;
		}
		TaskContext context = new TaskContext(task.id(), task.queue(), task.attempt(), task.enqueuedAt());
		Boolean completed;
		try {
			completed = this.handlerTransactions.execute((status) -> {
				invoke(handler, payload, context);
				if (this.tasks.complete(task)) {
					return true;
				}
				status.setRollbackOnly();
				return false;
			});
		}
		catch (Throwable ex) {
			failed(task, settings, (ex instanceof HandlerException wrapped) ? wrapped.getCause() : ex);
			return;
		}
		if (!Boolean.TRUE.equals(completed)) {
			logger.warn("Task " + task.id() + " on queue '" + task.queue() + "' (attempt " + task.attempt()
					+ ") lost its claim while its handler ran; its transaction was rolled back and another "
					+ "instance runs it");
		}
	}

	/**
	 * Counts the task as failed because its handler ran past {@code timeout}. Its thread has been interrupted;
	 * should the handler still finish, its completion finds the claim gone and rolls back.
	 */
	void timedOut(ClaimedTask task, QueueSettings settings, Thread handlerThread) {
		HandlerTimeoutException timeout = new HandlerTimeoutException("The handler did not finish within "
				+ settings.timeout() + " (taskqueue.queues." + task.queue() + ".timeout); its thread was interrupted");
		timeout.setStackTrace(handlerThread.getStackTrace()); // where the handler was stuck
		failed(task, settings, timeout);
	}

	/** Tries again to record the outcomes that could not be recorded before; keeps those that still fail. */
	void recordPendingOutcomes() {
		int pending = this.unrecordedOutcomes.size();
		for (int i = 0; i < pending; i++) {
			BooleanSupplier outcome = this.unrecordedOutcomes.poll();
			if (outcome == null) {
				return;
			}
			record(outcome);
		}
	}

	int pendingOutcomes() {
		return this.unrecordedOutcomes.size();
	}

	private void invoke(TaskHandlerMethod handler, Object payload, TaskContext context) {
		try {
			handler.invoke(payload, context);
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new HandlerException(ex);
		}
	}

	private void failed(ClaimedTask task, QueueSettings settings, Throwable failure) {
		String error = ErrorText.of(failure);
		if (failure instanceof NonRetryableTaskException) {
			logger.warn(describe(task) + " failed and will not be retried: " + ErrorText.summary(failure));
			record(() -> this.tasks.moveToDead(task, error));
		}
		else if (task.attempt() >= settings.maxAttempts()) {
			logger.warn(describe(task) + " failed on its last attempt and goes to the dead letters: "
					+ ErrorText.summary(failure), failure);
			record(() -> this.tasks.moveToDead(task, error));
		}
		else {
			java.time.Duration delay = settings.retryPolicy().delayAfter(task.attempt());
			// One line: the full trace is kept with the task (last_error) and logged when it gives up.
			logger.warn(describe(task) + " failed; retrying in " + delay.toMillis() + " ms: "
					+ ErrorText.summary(failure));
			record(() -> this.tasks.retryLater(task, delay, error));
		}
	}

	private void deadLetter(ClaimedTask task, String error) {
		logger.warn(describe(task) + " goes to the dead letters: " + error);
		record(() -> this.tasks.moveToDead(task, error));
	}

	private void record(BooleanSupplier outcome) {
		try {
			this.ownTransactions.executeWithoutResult((status) -> outcome.getAsBoolean());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record a task outcome, will try again: " + ErrorText.summary(ex));
			this.unrecordedOutcomes.add(outcome);
		}
	}

	private static String describe(ClaimedTask task) {
		return "Task " + task.id() + " on queue '" + task.queue() + "' (attempt " + task.attempt() + ")";
	}

	/** A handler ran past its queue's timeout. */
	static final class HandlerTimeoutException extends RuntimeException {

		HandlerTimeoutException(String message) {
			super(message);
		}

	}

	/** Carries a checked exception of a handler through the transaction template. */
	private static final class HandlerException extends RuntimeException {

		HandlerException(Exception cause) {
			super(cause);
		}

	}

}
