package dev.taskqueue.worker;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.handler.TaskHandlerMethod;
import dev.taskqueue.jdbc.ClaimedTask;
import dev.taskqueue.jdbc.PostgresConnections;
import dev.taskqueue.jdbc.TaskRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;

/**
 * Runs one claimed task: the handler and the fenced completion in one transaction of the application's
 * transaction manager, so the handler's database work commits exactly when the task is acknowledged. When the
 * handler fails, the transaction rolls back and the outcome (retry later, or dead letter) is recorded in a
 * transaction of its own. An outcome that cannot be recorded (the database is away) is kept and tried again.
 * <p>
 * Queues with group commit run several tasks in one transaction, each handler in a savepoint of its own, and
 * delete their completed tasks with one fenced statement before the commit: a failing task rolls back to its
 * savepoint and is recorded as failed after the group commits.
 */
public class TaskDispatcher {

	private static final Log logger = LogFactory.getLog(TaskDispatcher.class);

	/** What {@code prepare} returns for a task that is not to run. */
	private static final Object NOT_RUNNABLE = new Object();

	private final TaskRepository tasks;

	private final PayloadReader payloads;

	private final TransactionOperations handlerTransactions;

	/** The data source of the handlers' DataSourceTransactionManager, which group commit needs; else null. */
	private final DataSource groupDataSource;

	private final TransactionOperations ownTransactions;

	private final OutcomeRecorder outcomes;

	private final TaskQueueListener listener;

	private final List<TaskHandlerInterceptor> interceptors;

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
		this.groupDataSource = (handlerTransactions instanceof TransactionTemplate template
				&& template.getTransactionManager() instanceof DataSourceTransactionManager manager)
						? manager.getDataSource() : null;
		this.ownTransactions = ownTransactions;
		this.outcomes = new OutcomeRecorder(tasks, ownTransactions, listener);
		this.listener = this.outcomes.listener();
		this.interceptors = List.copyOf(interceptors);
	}

	/**
	 * Runs {@code task}: in a transaction with its completion, or, when {@code batched} is given, without one,
	 * handing the completion to {@code batched}. Before it records an outcome it asks {@code takeOutcome}, which
	 * says {@code false} when the task ran past its timeout and the timeout has recorded it; the handler's work
	 * then rolls back, so each attempt has exactly one outcome.
	 */
	void run(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings, BatchedCompletions batched,
			BooleanSupplier takeOutcome) {
		TaskContext context = context(task);
		try {
			Object payload = prepare(task, handler, settings, context,
					(reason) -> this.outcomes.deadLetter(task, context, reason));
			if (payload == NOT_RUNNABLE) {
				return;
			}
			if (batched != null) {
				runBatched(task, handler, settings, batched, context, payload, takeOutcome);
			}
			else {
				runInTransaction(task, handler, settings, context, payload, takeOutcome);
			}
		}
		catch (Throwable ex) {
			// Each step settles its own failures; this is for what none of them expected.
			this.outcomes.unexpected(task, context, settings, ex);
		}
	}

	/**
	 * Runs {@code first} and the tasks {@code steps} hands out after it in one transaction of the application's
	 * transaction manager, each handler in a savepoint, and deletes the completed tasks with one fenced statement
	 * before the commit. Completions are reported, and failures and dead letters recorded, once the group has
	 * committed. When the transaction fails, its tasks, still claimed, run again one
	 * by one, so that a task whose work cannot commit fails alone.
	 */
	void runGroup(QueueState queue, ClaimedTask first, Steps steps) {
		Assert.state(this.groupDataSource != null, "Group commit needs a DataSourceTransactionManager");
		Group group = new Group();
		group.current = first;
		long started = System.nanoTime();
		RuntimeException commitFailure = null;
		try {
			this.handlerTransactions.executeWithoutResult((status) -> {
				group.backendPid = backendPid();
				for (ClaimedTask task = first; task != null; task = steps.nextInGroup(group.size(), started)) {
					runInSavepoint(queue, task, status, steps, group);
				}
				completeAll(group);
			});
		}
		catch (RuntimeException | Error ex) {
			if (group.givenUp) {
				if (!group.released) {
					// Ending the backend failed, so the group's tasks were left claimed until this thread came back.
					this.outcomes.release(completedTasks(group.entries()));
					settleAfterRollback(group.entries(), queue.settings, steps);
				}
				return;
			}
			// An Error too: the group's tasks are still claimed and must each get an outcome.
			commitFailure = (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
		}
		if (commitFailure instanceof ClaimsLostException lost) {
			if (lost.ids.size() < group.size()) {
				logger.warn(lost.getMessage() + " on queue '" + queue.name() + "'; the group rolled back and its "
						+ "other " + (group.size() - lost.ids.size()) + " tasks run again one by one");
			}
		}
		else if (commitFailure != null && group.size() > 1) {
			// Its tasks are still claimed: each runs again alone, so that a task that fails the commit fails alone.
			logger.warn("A group of " + group.size() + " tasks on queue '" + queue.name() + "' could not commit; "
					+ "running them one by one: " + ErrorText.summary(commitFailure));
		}
		if (group.current != null) { // taken, but the transaction failed before it ran
			steps.runAlone(group.current);
		}
		for (Group.Entry entry : group.entries()) {
			if (entry.rejected()) {
				this.outcomes.deadLetter(entry.task(), entry.context(), (Exception) entry.failure());
			}
			else if (entry.failure() != null) {
				this.outcomes.failed(entry.task(), entry.context(), queue.settings, entry.failure(),
						entry.duration());
			}
			else if (commitFailure == null) {
				this.outcomes.completed(entry.context(), entry.duration());
			}
			else if (commitFailure instanceof ClaimsLostException lost && lost.ids.contains(entry.task().id())) {
				this.outcomes.claimLost(entry.task(), entry.context());
			}
			else if (group.size() > 1) {
				steps.runAlone(entry.task());
				continue;
			}
			else {
				this.outcomes.failed(entry.task(), entry.context(), queue.settings, commitFailure,
						entry.duration());
			}
			steps.settled(entry.task());
		}
	}

	private void runInSavepoint(QueueState queue, ClaimedTask task, TransactionStatus status, Steps steps,
			Group group) {
		group.current = task;
		TaskContext context = context(task);
		// Sent to the dead letters after the group, not on the group's connection, where a rollback would undo it.
		Object payload = prepare(task, queue.handler, queue.settings, context,
				(reason) -> group.add(new Group.Entry(task, context, reason, Duration.ZERO, true)));
		if (payload == NOT_RUNNABLE) {
			group.current = null;
			return;
		}
		TaskConnectionHolder connection = bindTaskConnection();
		List<TransactionSynchronization> synchronizations = TransactionSynchronizationManager.isSynchronizationActive()
				? TransactionSynchronizationManager.getSynchronizations() : List.of();
		steps.begin(task, group);
		long start = System.nanoTime();
		Throwable failure = null;
		try {
			invoke(queue.handler, payload, context, this.payloads.headers(task.headers()));
			if (connection.isRollbackOnly() || status.isRollbackOnly()) {
				// A participating transaction failed: only this task's work is rolled back, not its group's.
				throw new UnexpectedRollbackException(
						"Transaction rolled back because it has been marked as rollback-only");
			}
			if (connection.isTransactionFailed()) {
				throw new UnexpectedRollbackException("Transaction rolled back because a statement of the handler "
						+ "failed and the handler went on (caught the exception)");
			}
		}
		catch (Throwable ex) {
			failure = unwrap(ex);
		}
		finally {
			TransactionSynchronizationManager.unbindResource(this.groupDataSource);
			TransactionSynchronizationManager.bindResource(this.groupDataSource, connection.group());
		}
		long nanos = System.nanoTime() - start;
		if (!steps.end(task)) {
			group.awaitEnded(); // the connection must stay ours until its backend has been ended
			throw new GroupGivenUp();
		}
		steps.handled(nanos);
		// The task's entry first: should the rollback fail, the group fails and the task with it.
		group.add(new Group.Entry(task, context, failure, Duration.ofNanos(nanos), false));
		group.current = null;
		if (failure != null) {
			try {
				connection.rollBack();
			}
			catch (SQLException ex) {
				throw new CannotCreateTransactionException("Could not roll back to the savepoint of a failed task", ex);
			}
			rollBackSynchronizations(synchronizations);
		}
	}

	/**
	 * Drops the transaction synchronizations a failed task registered, after telling them their work was rolled
	 * back, so that, say, an after-commit event of a failed task is not published when its group commits.
	 */
	private static void rollBackSynchronizations(List<TransactionSynchronization> before) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		List<TransactionSynchronization> all = TransactionSynchronizationManager.getSynchronizations();
		if (all.size() == before.size()) {
			return;
		}
		TransactionSynchronizationManager.clearSynchronization();
		TransactionSynchronizationManager.initSynchronization();
		before.forEach(TransactionSynchronizationManager::registerSynchronization);
		for (TransactionSynchronization synchronization : all) {
			if (!before.contains(synchronization)) {
				try {
					synchronization.beforeCompletion();
				}
				catch (RuntimeException ex) {
					logger.warn("A transaction synchronization of a failed task threw before its rollback: "
							+ ErrorText.summary(ex));
				}
				try {
					synchronization.afterCompletion(TransactionSynchronization.STATUS_ROLLED_BACK);
				}
				catch (RuntimeException ex) {
					logger.warn("A transaction synchronization of a failed task threw on its rollback: "
							+ ErrorText.summary(ex));
				}
			}
		}
	}

	/** The backend of the group's own connection, the one its transaction manager bound. */
	private int backendPid() {
		ConnectionHolder holder = (ConnectionHolder) TransactionSynchronizationManager
			.getResource(this.groupDataSource);
		try {
			return PostgresConnections.backendPid(holder.getConnection());
		}
		catch (SQLException ex) {
			throw new CannotCreateTransactionException("Could not read the backend of a group's connection", ex);
		}
	}

	/** Binds the group's connection as a task's: its savepoint is set when the handler first uses it. */
	private TaskConnectionHolder bindTaskConnection() {
		ConnectionHolder groupConnection = (ConnectionHolder) TransactionSynchronizationManager
			.unbindResource(this.groupDataSource);
		TaskConnectionHolder connection = new TaskConnectionHolder(groupConnection);
		TransactionSynchronizationManager.bindResource(this.groupDataSource, connection);
		return connection;
	}

	/**
	 * Deletes the group's completed tasks with one statement per claiming session, fenced like one by one; when a
	 * claim was lost, the whole group rolls back, since that task's work cannot be told apart any more.
	 */
	private void completeAll(Group group) {
		Map<UUID, List<ClaimedTask>> bySession = completedTasks(group.entries()).stream()
			.collect(Collectors.groupingBy(ClaimedTask::claimedBy));
		Set<UUID> lost = new HashSet<>();
		bySession.forEach((session, completed) -> {
			Set<UUID> deleted = new HashSet<>(this.tasks.completeAll(session, completed));
			completed.stream().map(ClaimedTask::id).filter((id) -> !deleted.contains(id)).forEach(lost::add);
		});
		if (!lost.isEmpty()) {
			throw new ClaimsLostException(lost);
		}
	}

	/**
	 * Checks what must hold before {@code task}'s handler runs, and tells the listener it starts.
	 * @return the payload as the handler takes it, or {@link #NOT_RUNNABLE} when the task went to the dead letters
	 */
	private Object prepare(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings, TaskContext context,
			Consumer<Exception> rejected) {
		if (task.attempt() > settings.maxAttempts()) {
			rejected.accept(new IllegalStateException("Gave up after " + settings.maxAttempts()
					+ " attempts; the last one ended without an outcome because its worker stopped or lost its "
					+ "session" + ((task.lastError() != null) ? ". Error before that:\n" + task.lastError() : "")));
			return NOT_RUNNABLE;
		}
		Object payload;
		try {
			payload = this.payloads.read(task.payload(), handler.payloadType());
		}
		catch (Throwable ex) {
			if (ex instanceof VirtualMachineError) {
				throw ex; // out of memory, say: not the payload's fault, so the attempt fails but is not dead
			}
			// Errors too: a payload type's constructor may assert, or its class fail to initialise.
			rejected.accept(new IllegalArgumentException("Payload cannot be read as "
					+ handler.payloadType().getTypeName() + " for " + handler.describe() + ": " + ex.getMessage(), ex));
			return NOT_RUNNABLE;
		}
		Duration pickupLatency = Duration.between(task.runAt(), task.claimedAt());
		this.listener.started(context, pickupLatency.isNegative() ? Duration.ZERO : pickupLatency);
		return payload;
	}

	private void runInTransaction(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings,
			TaskContext context, Object payload, BooleanSupplier takeOutcome) {
		long start = System.nanoTime();
		Boolean completed;
		try {
			completed = this.handlerTransactions.execute((status) -> {
				invoke(handler, payload, context, this.payloads.headers(task.headers()));
				if (!takeOutcome.getAsBoolean()) {
					status.setRollbackOnly(); // it ran past its timeout, which has recorded it as failed
					return null;
				}
				if (this.tasks.complete(task)) {
					return true;
				}
				status.setRollbackOnly();
				return false;
			});
		}
		catch (Throwable ex) {
			if (takeOutcome.getAsBoolean()) {
				this.outcomes.failed(task, context, settings, unwrap(ex), Duration.ofNanos(System.nanoTime() - start));
			}
			return;
		}
		if (completed == null) {
			return;
		}
		if (Boolean.TRUE.equals(completed)) {
			this.outcomes.completed(context, Duration.ofNanos(System.nanoTime() - start));
		}
		else {
			this.outcomes.claimLost(task, context);
		}
	}

	private void runBatched(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings,
			BatchedCompletions batched, TaskContext context, Object payload, BooleanSupplier takeOutcome) {
		long start = System.nanoTime();
		try {
			invoke(handler, payload, context, this.payloads.headers(task.headers()));
		}
		catch (Throwable ex) {
			if (takeOutcome.getAsBoolean()) {
				this.outcomes.failed(task, context, settings, unwrap(ex), Duration.ofNanos(System.nanoTime() - start));
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
	void timedOut(ClaimedTask task, QueueSettings settings, Thread handlerThread, Group group, Steps steps) {
		HandlerTimeoutException timeout = new HandlerTimeoutException("The handler did not finish within "
				+ settings.timeout() + " (taskqueue.queues." + task.queue() + ".timeout); its thread was interrupted");
		timeout.setStackTrace(handlerThread.getStackTrace()); // where the handler was stuck
		if (group == null) {
			this.outcomes.failed(task, context(task), settings, timeout, settings.timeout());
			steps.settled(task);
			return;
		}
		// Not on the timeout thread: ending the backend and releasing the tasks wait for the database.
		Threads.named("tq-give-up-", true).newThread(() -> giveUp(group, task, settings, timeout, steps)).start();
	}

	private void giveUp(Group group, ClaimedTask timedOut, QueueSettings settings, Exception timeout, Steps steps) {
		List<Group.Entry> entries = group.entries();
		try {
			group.released = endBackend(group.backendPid, timedOut);
			if (group.released) {
				this.outcomes.release(completedTasks(entries));
			}
		}
		finally {
			group.ended.countDown();
		}
		logger.warn(OutcomeRecorder.describe(timedOut) + " ran past its timeout inside a group of "
				+ (entries.size() + 1) + " tasks; " + (group.released ? "the group's transaction was rolled back and "
						+ "its other tasks run again" : "its other tasks stay claimed until the handler returns"));
		this.outcomes.failed(timedOut, context(timedOut), settings, timeout, settings.timeout());
		steps.settled(timedOut);
		if (group.released) {
			settleAfterRollback(entries, settings, steps);
		}
	}

	private boolean endBackend(int pid, ClaimedTask timedOut) {
		try {
			return Boolean.TRUE.equals(this.ownTransactions.execute((status) -> this.tasks.terminateBackend(pid)));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not end the database backend " + pid + " running task " + timedOut.id()
					+ " and its group: " + ErrorText.summary(ex));
			return false;
		}
	}

	private static List<ClaimedTask> completedTasks(List<Group.Entry> entries) {
		return entries.stream().filter(Group.Entry::succeeded).map(Group.Entry::task).toList();
	}

	/** Settles the tasks of a group that was rolled back: failures are recorded, completed tasks released. */
	private void settleAfterRollback(List<Group.Entry> entries, QueueSettings settings, Steps steps) {
		for (Group.Entry entry : entries) {
			if (entry.rejected()) {
				this.outcomes.deadLetter(entry.task(), entry.context(), (Exception) entry.failure());
			}
			else if (entry.failure() != null) {
				this.outcomes.failed(entry.task(), entry.context(), settings, entry.failure(), entry.duration());
			}
			steps.settled(entry.task());
		}
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

	/** Tries again to record the outcomes that could not be recorded before. */
	void recordPendingOutcomes() {
		this.outcomes.recordPending();
	}

	int pendingOutcomes() {
		return this.outcomes.pending();
	}

	private static Throwable unwrap(Throwable ex) {
		return (ex instanceof HandlerException wrapped) ? wrapped.getCause() : ex;
	}

	private static TaskContext context(ClaimedTask task) {
		return new TaskContext(task.id(), task.queue(), task.attempt(), task.enqueuedAt());
	}

	/** What the handler thread running a task, or a group of tasks, does around each one. */
	interface Steps {

		/**
		 * The next task for the group, or {@code null} when it is to commit.
		 * @param size how many tasks the group has
		 * @param startedNanos when the group started, by {@link System#nanoTime()}
		 */
		ClaimedTask nextInGroup(int size, long startedNanos);

		/** {@code task}'s handler starts, alone ({@code group} is {@code null}) or in {@code group}. */
		void begin(ClaimedTask task, Group group);

		/** {@code task}'s handler has returned; {@code false} when it ran past its timeout and was given up. */
		boolean end(ClaimedTask task);

		/** {@code task}'s outcome is settled (or will be, by the outcomes recorded later). */
		void settled(ClaimedTask task);

		/** Runs {@code task} in a transaction of its own, under its timeout, and settles it. */
		void runAlone(ClaimedTask task);

		/** A handler ran for {@code nanos}. */
		void handled(long nanos);

	}

	/** The tasks of one group transaction, as they ran. */
	static final class Group {

		private final List<Entry> entries = new ArrayList<>();

		private final CountDownLatch ended = new CountDownLatch(1);

		/** Set by the handler thread once it knows its group was given up. */
		private volatile boolean givenUp;

		/** Whether giving up ended the transaction and released the completed tasks. */
		private volatile boolean released;

		/** The database backend serving the group's transaction. */
		private volatile int backendPid;

		/** A task taken by the group's thread that has no entry yet. */
		private ClaimedTask current;

		synchronized void add(Entry entry) {
			this.entries.add(entry);
		}

		synchronized int size() {
			return this.entries.size();
		}

		synchronized List<Entry> entries() {
			return List.copyOf(this.entries);
		}

		/**
		 * Called by the handler thread of a group that was given up: waits until its backend has been ended (or
		 * could not be), so that the connection, and with it the backend, is not handed to anyone else before.
		 */
		void awaitEnded() {
			this.givenUp = true;
			boolean interrupted = false;
			while (true) {
				try {
					this.ended.await(); // not cut short: the backend must be ended before the connection goes back
					break;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}

		/**
		 * A task of the group: its handler returned, or threw {@code failure}; or it was {@code rejected} before its
		 * handler could run, for the dead letters, {@code failure} saying why.
		 */
		record Entry(ClaimedTask task, TaskContext context, Throwable failure, Duration duration, boolean rejected) {

			boolean succeeded() {
				return this.failure == null;
			}

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
