package dev.taskqueue.worker;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

import javax.sql.DataSource;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.handler.TaskHandlerMethod;
import dev.taskqueue.jdbc.ClaimedTask;
import dev.taskqueue.jdbc.CompletionCommit;
import dev.taskqueue.jdbc.SerializationRetry;
import dev.taskqueue.jdbc.TaskRepository;
import dev.taskqueue.support.DatabaseOutage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs one claimed task: the handler and the fenced completion in one transaction of the application's
 * transaction manager, so the handler's database work commits exactly when the task is acknowledged. When the
 * handler fails, the transaction rolls back and the outcome (retry later, or dead letter) is recorded in a
 * transaction of its own by the {@link OutcomeRecorder}. Queues with group commit run through {@link GroupCommit}.
 */
public class TaskDispatcher {

	private static final Log logger = LogFactory.getLog(TaskDispatcher.class);

	private final OutcomeRecorder outcomes;

	private final TaskInvoker invoker;

	private final GroupCommit groups;

	private final TransactionalRun transactional;

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
		this(tasks, payloads, handlerTransactions, ownTransactions, listener, interceptors, null,
				SerializationRetry.none());
	}

	/**
	 * @param tasks the task repository
	 * @param payloads reads payloads as the handler's type
	 * @param handlerTransactions transactions of the application's transaction manager, for handlers
	 * @param ownTransactions transactions for the worker's own bookkeeping
	 * @param listener hears what happens to each task
	 * @param interceptors wrap each handler invocation, first one outermost
	 * @param completionCommit completes a task with the commit of its handler's transaction, or {@code null}; only
	 * for a {@code DataSourceTransactionManager} over TaskQueue's data source
	 * @param retry runs a handler's transaction that failed with a serialization failure again, handler included
	 */
	public TaskDispatcher(TaskRepository tasks, PayloadReader payloads, TransactionOperations handlerTransactions,
			TransactionOperations ownTransactions, TaskQueueListener listener,
			List<TaskHandlerInterceptor> interceptors, @Nullable CompletionCommit completionCommit,
			SerializationRetry retry) {
		this.outcomes = new OutcomeRecorder(tasks, ownTransactions, listener);
		this.invoker = new TaskInvoker(payloads, this.outcomes.listener(), interceptors);
		this.transactional = new TransactionalRun(tasks, handlerTransactions, this.outcomes, this.invoker,
				completionCommit, retry);
		DataSource groupDataSource = (handlerTransactions instanceof TransactionTemplate template
				&& template.getTransactionManager() instanceof DataSourceTransactionManager manager)
						? manager.getDataSource() : null;
		this.groups = new GroupCommit(tasks, this.invoker, this.outcomes, handlerTransactions, groupDataSource,
				ownTransactions);
	}

	/**
	 * Runs {@code task}: in a transaction with its completion, or, when {@code batched} is given, without one,
	 * handing the completion to {@code batched}. Before it records an outcome it asks {@code takeOutcome}, which
	 * says {@code false} when the task ran past its timeout and the timeout has recorded it; the handler's work
	 * then rolls back, so each attempt has exactly one outcome.
	 */
	void run(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings, @Nullable BatchedCompletions batched,
			BooleanSupplier takeOutcome) {
		run(task, handler, settings, batched, takeOutcome, HandOffs.NONE);
	}

	/**
	 * {@link #run} whose completion may hand the next task of {@code task}'s ordering key off to {@code handOffs}
	 * (see {@link CompletionCommit}), asked as the completion is written.
	 */
	void run(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings, @Nullable BatchedCompletions batched,
			BooleanSupplier takeOutcome, HandOffs handOffs) {
		TaskContext context = TaskInvoker.context(task);
		try {
			Object payload = this.invoker.prepare(task, handler, settings, context,
					(reason) -> this.outcomes.deadLetter(task, context, reason, settings.maxAttempts()));
			if (payload == TaskInvoker.NOT_RUNNABLE) {
				return;
			}
			if (batched != null) {
				runBatched(task, handler, settings, batched, context, payload, takeOutcome);
			}
			else {
				this.transactional.run(task, handler, settings, context, payload, takeOutcome, handOffs);
			}
		}
		catch (Throwable ex) {
			// Each step settles its own failures; this is for what none of them expected.
			this.outcomes.unexpected(task, context, settings, ex);
		}
	}

	/**
	 * Runs {@code first} and the tasks {@code steps} hands out after it as one group; see {@link GroupCommit}.
	 * @return the tasks of the group that must run again, each alone, because the group could not commit
	 */
	List<ClaimedTask> runGroup(QueueState queue, ClaimedTask first, Steps steps) {
		return this.groups.run(queue, first, steps);
	}

	private void runBatched(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings,
			BatchedCompletions batched, TaskContext context, Object payload, BooleanSupplier takeOutcome) {
		long start = System.nanoTime();
		try {
			this.invoker.invoke(handler, payload, context, task);
		}
		catch (Throwable ex) {
			if (takeOutcome.getAsBoolean()) {
				this.outcomes.failed(task, context, settings, TaskInvoker.unwrap(ex),
						Duration.ofNanos(System.nanoTime() - start));
			}
			return;
		}
		if (!takeOutcome.getAsBoolean()) {
			return; // it ran past its timeout, which has recorded it as failed
		}
		try {
			batched.add(task, context, Duration.ofNanos(System.nanoTime() - start));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			logger.warn(OutcomeRecorder.describe(task) + " finished but was interrupted before its completion was "
					+ "queued; it runs again when this session ends");
		}
	}

	/**
	 * Counts the task as failed because its handler ran past its queue's timeout. Its thread has been interrupted;
	 * should the handler still finish, it finds the outcome taken and rolls back. When the task is part of
	 * a group, the group is given up: its transaction is ended by ending its database backend, which frees its
	 * locks, and the tasks it had completed are released to run again.
	 */
	void timedOut(ClaimedTask task, QueueSettings settings, Thread handlerThread, @Nullable CommitGroup group,
			Steps steps) {
		HandlerTimeoutException timeout = new HandlerTimeoutException("The handler did not finish within "
				+ settings.timeout() + " (taskqueue.queues." + task.queue() + ".timeout); its thread was interrupted");
		timeout.setStackTrace(handlerThread.getStackTrace()); // where the handler was stuck
		if (group == null) {
			this.outcomes.failed(task, TaskInvoker.context(task), settings, timeout, settings.timeout());
			steps.settled(task);
			return;
		}
		this.groups.timedOut(task, settings, timeout, group, steps);
	}

	/** Gives back, now, the tasks whose handlers the worker's shutdown interrupted (see OutcomeRecorder). */
	void giveBackAtShutdown(List<ClaimedTask> interrupted) {
		this.outcomes.giveBackAtShutdown(interrupted);
	}

	/** Says outcomes that cannot be written for want of the database through {@code outage}. */
	public void reportOutagesTo(DatabaseOutage outage) {
		this.outcomes.reportOutagesTo(outage);
	}

	/** Passes the errors TaskQueue logs for failed tasks through {@code redactor}, as the dashboard does. */
	public void redactLogsWith(TaskRedactor redactor) {
		this.outcomes.redactLogsWith(redactor);
	}

	/** Tries again to record the outcomes that could not be recorded before. */
	void recordPendingOutcomes() {
		this.outcomes.recordPending();
	}

	int pendingOutcomes() {
		return this.outcomes.pending();
	}

	/** What the handler thread running a task, or a group of tasks, does around each one. */
	interface Steps {

		/**
		 * The next task for the group, or {@code null} when it is to commit.
		 * @param size how many tasks the group has
		 * @param startedNanos when the group started, by {@link System#nanoTime()}
		 */
		@Nullable ClaimedTask nextInGroup(int size, long startedNanos);

		/** {@code task}'s handler starts, alone ({@code group} is {@code null}) or in {@code group}. */
		void begin(ClaimedTask task, @Nullable CommitGroup group);

		/** {@code task}'s handler has returned; {@code false} when it ran past its timeout and was given up. */
		boolean end(ClaimedTask task);

		/** {@code task}'s outcome is settled (or will be, by the outcomes recorded later). */
		void settled(ClaimedTask task);

		/** A handler ran for {@code nanos}. */
		void handled(long nanos);

		/** Whether a completion may hand the next task of the completed task's ordering key to this worker. */
		boolean mayHandOff();

		/** A group's commit deleted the heads {@code completed}, leaving their keys to the claim loop's hand-off. */
		void leftHeadless(List<ClaimedTask> completed);

	}

	/** A handler ran past its queue's timeout. */
	static final class HandlerTimeoutException extends RuntimeException {

		HandlerTimeoutException(String message) {
			super(message);
		}

	}

}
