package dev.taskqueue.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueueListener;
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

	private final TaskQueueListener listener;

	private final List<TaskHandlerInterceptor> interceptors;

	private static final long LOG_INTERVAL_NANOS = 60_000_000_000L;

	private final Queue<BooleanSupplier> unrecordedOutcomes = new ConcurrentLinkedQueue<>();

	private volatile long lastUnrecordedWarning;

	/**
	 * @param tasks the task repository
	 * @param payloads reads payloads as the handler's type
	 * @param handlerTransactions transactions of the application's transaction manager, for handlers
	 * @param ownTransactions transactions for the worker's own bookkeeping
	 * @param listener hears what happens to each task
	 * @param interceptors wrap each handler invocation, first one outermost
	 */
	public TaskDispatcher(TaskRepository tasks, PayloadReader payloads, TransactionOperations handlerTransactions,
			TransactionOperations ownTransactions, TaskQueueListener listener,
			List<TaskHandlerInterceptor> interceptors) {
		this.tasks = tasks;
		this.payloads = payloads;
		this.handlerTransactions = handlerTransactions;
		this.ownTransactions = ownTransactions;
		this.listener = listener;
		this.interceptors = List.copyOf(interceptors);
	}

	/**
	 * Runs {@code task}: in a transaction with its completion, or, when {@code batched} is given, without one,
	 * handing the completion to {@code batched}.
	 */
	void run(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings, BatchedCompletions batched) {
		TaskContext context = new TaskContext(task.id(), task.queue(), task.attempt(), task.enqueuedAt());
		if (task.attempt() > settings.maxAttempts()) {
			deadLetter(task, context, new IllegalStateException("Gave up after " + settings.maxAttempts()
					+ " attempts; the last one ended without an outcome because its worker stopped or lost its "
					+ "session" + ((task.lastError() != null) ? ". Error before that:\n" + task.lastError() : "")));
			return;
		}
		Object payload;
		try {
			payload = this.payloads.read(task.payload(), handler.payloadType());
		}
		catch (RuntimeException ex) {
			deadLetter(task, context, new IllegalArgumentException("Payload cannot be read as "
					+ handler.payloadType().getTypeName() + " for " + handler.describe() + ": " + ex.getMessage(), ex));
			return;
		}
		Duration pickupLatency = Duration.between(task.runAt(), task.claimedAt());
		this.listener.started(context, pickupLatency.isNegative() ? Duration.ZERO : pickupLatency);
		if (batched != null) {
			runBatched(task, handler, settings, batched, context, payload);
		}
		else {
			runInTransaction(task, handler, settings, context, payload);
		}
	}

	private void runInTransaction(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings,
			TaskContext context, Object payload) {
		long start = System.nanoTime();
		Boolean completed;
		try {
			completed = this.handlerTransactions.execute((status) -> {
				invoke(handler, payload, context, this.payloads.headers(task.headers()));
				if (this.tasks.complete(task)) {
					return true;
				}
				status.setRollbackOnly();
				return false;
			});
		}
		catch (Throwable ex) {
			failed(task, context, settings, (ex instanceof HandlerException wrapped) ? wrapped.getCause() : ex,
					Duration.ofNanos(System.nanoTime() - start));
			return;
		}
		if (Boolean.TRUE.equals(completed)) {
			this.listener.completed(context, Duration.ofNanos(System.nanoTime() - start));
		}
		else {
			logger.warn(describe(task) + " lost its claim while its handler ran; its transaction was rolled back "
					+ "and another instance runs it");
			this.listener.claimLost(context);
		}
	}

	private void runBatched(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings,
			BatchedCompletions batched, TaskContext context, Object payload) {
		long start = System.nanoTime();
		try {
			invoke(handler, payload, context, this.payloads.headers(task.headers()));
		}
		catch (Throwable ex) {
			failed(task, context, settings, (ex instanceof HandlerException wrapped) ? wrapped.getCause() : ex,
					Duration.ofNanos(System.nanoTime() - start));
			return;
		}
		try {
			batched.add(task, context, Duration.ofNanos(System.nanoTime() - start));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			logger.warn(describe(task) + " finished but was interrupted before its completion was queued; it runs "
					+ "again when this session ends");
		}
	}

	/**
	 * Counts the task as failed because its handler ran past its queue's timeout. Its thread has been interrupted;
	 * should the handler still finish, its completion finds the claim gone and rolls back.
	 */
	void timedOut(ClaimedTask task, QueueSettings settings, Thread handlerThread) {
		HandlerTimeoutException timeout = new HandlerTimeoutException("The handler did not finish within "
				+ settings.timeout() + " (taskqueue.queues." + task.queue() + ".timeout); its thread was interrupted");
		timeout.setStackTrace(handlerThread.getStackTrace()); // where the handler was stuck
		failed(task, new TaskContext(task.id(), task.queue(), task.attempt(), task.enqueuedAt()), settings, timeout,
				settings.timeout());
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

	private void invoke(TaskHandlerMethod handler, Object payload, TaskContext context, Map<String, String> headers) {
		try {
			proceed(0, handler, payload, context, headers);
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new HandlerException(ex);
		}
	}

	private void proceed(int index, TaskHandlerMethod handler, Object payload, TaskContext context,
			Map<String, String> headers) throws Exception {
		if (index == this.interceptors.size()) {
			handler.invoke(payload, context);
		}
		else {
			this.interceptors.get(index)
				.intercept(context, headers, () -> proceed(index + 1, handler, payload, context, headers));
		}
	}

	private void failed(ClaimedTask task, TaskContext context, QueueSettings settings, Throwable failure,
			Duration duration) {
		String error = ErrorText.of(failure);
		if (failure instanceof NonRetryableTaskException) {
			logger.warn(describe(task) + " failed and will not be retried: " + ErrorText.summary(failure));
			record(() -> this.tasks.moveToDead(task, error));
			this.listener.failed(context, duration, failure, true);
		}
		else if (task.attempt() >= settings.maxAttempts()) {
			logger.warn(describe(task) + " failed on its last attempt and goes to the dead letters: "
					+ ErrorText.summary(failure), failure);
			record(() -> this.tasks.moveToDead(task, error));
			this.listener.failed(context, duration, failure, true);
		}
		else {
			Duration delay = settings.retryPolicy().delayAfter(task.attempt());
			// One line: the full trace is kept with the task (last_error) and logged when it gives up.
			logger.warn(describe(task) + " failed; retrying in " + delay.toMillis() + " ms: "
					+ ErrorText.summary(failure));
			record(() -> this.tasks.retryLater(task, delay, error));
			this.listener.failed(context, duration, failure, false);
		}
	}

	private void deadLetter(ClaimedTask task, TaskContext context, Exception reason) {
		logger.warn(describe(task) + " goes to the dead letters: " + reason.getMessage());
		record(() -> this.tasks.moveToDead(task, reason.getMessage()));
		this.listener.failed(context, Duration.ZERO, reason, true);
	}

	private void record(BooleanSupplier outcome) {
		try {
			this.ownTransactions.executeWithoutResult((status) -> outcome.getAsBoolean());
		}
		catch (RuntimeException ex) {
			// Said once a minute at most: while the database is away this would fail on every poll.
			long now = System.nanoTime();
			if (now - this.lastUnrecordedWarning > LOG_INTERVAL_NANOS || this.lastUnrecordedWarning == 0) {
				this.lastUnrecordedWarning = now;
				logger.warn("Could not record a task outcome (" + (this.unrecordedOutcomes.size() + 1)
						+ " waiting), will try again: " + ErrorText.summary(ex));
			}
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
