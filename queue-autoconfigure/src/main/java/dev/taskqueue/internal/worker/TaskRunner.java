package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.support.TaskQueueListeners;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claims the ready tasks of a queue and runs them on the calling thread, as the worker would: the payload read as
 * the handler's type, the interceptors, the listeners, the handler and its fenced completion in one transaction, a
 * retry or a dead letter recorded on failure. Made for tests (the {@code queue-test} module), it leaves out what a
 * test cannot use: there is no timeout, and every task commits alone with its completion, on queues with group
 * commit or {@code BATCHED} completion too. Inside a caller's transaction each handler runs in a nested one (a
 * savepoint), so that a failing handler undoes its own work only and the caller sees every outcome.
 */
public class TaskRunner {

	private final TaskHandlerRegistry registry;

	private final TaskRepository tasks;

	private final SessionRepository sessions;

	private final PlatformTransactionManager transactionManager;

	private final TransactionOperations ownTransactions;

	private final Function<TaskHandlerMethod, QueueSettings> queueSettings;

	private final CompletionModes modes;

	/** The outcomes of the run going on in this thread, written by the completion mode's listener calls. */
	private final ThreadLocal<List<Ran>> outcomes = new ThreadLocal<>();

	/**
	 * @param transactionManager the application's transaction manager, for the handlers
	 * @param ownTransactions transactions for the claim and the outcomes
	 * @param listener the application's listeners
	 * @param queueSettings the settings of a handler's queue
	 */
	TaskRunner(TaskHandlerRegistry registry, TaskRepository tasks, SessionRepository sessions,
			PlatformTransactionManager transactionManager, TransactionOperations ownTransactions,
			TaskInvoker.PayloadReader payloads, TaskQueueListener listener, List<TaskHandlerInterceptor> interceptors,
			Function<TaskHandlerMethod, QueueSettings> queueSettings) {
		this.registry = registry;
		this.tasks = tasks;
		this.sessions = sessions;
		this.transactionManager = transactionManager;
		this.ownTransactions = ownTransactions;
		this.queueSettings = queueSettings;
		// NESTED starts a transaction of its own when there is none, exactly as the worker's REQUIRED does.
		TransactionTemplate handlerTransactions = new TransactionTemplate(transactionManager);
		handlerTransactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		this.modes = new CompletionModes(tasks, payloads, handlerTransactions, ownTransactions,
				new TaskQueueListeners(List.of(new Recorder(), listener)), interceptors);
	}

	/** Fails the attempts whose result is longer than {@code maxBytes} of JSON, as the worker does. */
	TaskRunner limitingResults(long maxBytes) {
		this.modes.limitResults(maxBytes);
		return this;
	}

	/** The queues this application has a handler for, in the order they were found. */
	public List<String> queues() {
		return this.registry.all().stream().map(TaskHandlerMethod::queue).toList();
	}

	/**
	 * Runs the tasks of {@code queue} that are ready now, as {@link #run(List)} does.
	 */
	public List<Ran> run(String queue) {
		return run(List.of(queue));
	}

	/**
	 * Runs the tasks of {@code queues} that are ready now on this thread, queue after queue, each queue's one after
	 * the other in claim order, under a session of their own. Each queue's due tasks are claimed when its turn
	 * comes, so a task enqueued into a later queue of the same call runs in it; one enqueued into a queue already
	 * run, and a failed task, wait for the next call. Queues paused by an operator run too.
	 * @return what became of each task, in the order they ran
	 * @throws IllegalArgumentException if this application has no handler for one of {@code queues}
	 * @throws IllegalStateException if a transaction is active whose manager cannot nest one, or when an outcome
	 * could not be recorded
	 */
	public List<Ran> run(List<String> queues) {
		List<TaskHandlerMethod> handlers = queues.stream().map(this::handler).toList();
		checkNestable();
		this.modes.outcomes().recordPending();
		List<Ran> ran = new ArrayList<>();
		UUID session = UUID.randomUUID();
		this.ownTransactions.executeWithoutResult((status) -> this.sessions.register(session, "TaskRunner"));
		Deque<ClaimedTask> unstarted = new ArrayDeque<>();
		boolean ranAll = false;
		this.outcomes.set(ran);
		try {
			for (TaskHandlerMethod handler : handlers) {
				TransactionalRun run = this.modes.transactional(handler, this.queueSettings.apply(handler));
				this.ownTransactions
					.execute((status) -> this.tasks
						.claim(TaskClaims.Request.of(handler.queue(), session, Integer.MAX_VALUE)))
					.claimed()
					.stream()
					.sorted(ClaimLoop.CLAIM_ORDER)
					.forEach(unstarted::add);
				while (!unstarted.isEmpty()) {
					run.run(unstarted.poll(), () -> true);
				}
			}
			ranAll = true;
		}
		finally {
			this.outcomes.remove();
			try {
				List<UUID> ids = unstarted.stream().map(ClaimedTask::id).toList();
				this.ownTransactions.executeWithoutResult((status) -> {
					this.tasks.releaseUnstarted(ids, session);
					this.sessions.end(session);
				});
			}
			catch (RuntimeException ex) {
				if (ranAll) {
					throw ex;
				}
				// else what stopped the run says more
			}
		}
		int pending = this.modes.outcomes().pending();
		if (pending > 0) {
			throw new IllegalStateException("Could not record the outcome of " + pending
					+ " tasks (see the log); they are kept and recorded by the next run");
		}
		return ran;
	}

	private TaskHandlerMethod handler(String queue) {
		TaskHandlerMethod handler = this.registry.get(queue);
		if (handler == null) {
			throw new IllegalArgumentException("This application has no @TaskHandler for queue '" + queue
					+ "'; its queues are " + queues());
		}
		return handler;
	}

	private void checkNestable() {
		if (TransactionSynchronizationManager.isActualTransactionActive()
				&& this.transactionManager instanceof AbstractPlatformTransactionManager manager
				&& !manager.isNestedTransactionAllowed()) {
			throw new IllegalStateException("Cannot run tasks inside the caller's transaction: each handler would run "
					+ "in a nested transaction (a savepoint) of it, which " + manager.getClass().getName()
					+ " does not allow. Run them outside a transaction (a test without @Transactional)");
		}
	}

	/** What became of one task. */
	public enum Outcome {

		/** The handler returned and the task's completion committed with its work. */
		COMPLETED,

		/** The handler failed; the task waits for its next attempt. */
		RETRIED,

		/** The task went to the dead letters. */
		DEAD,

		/** The handler returned, but the task's claim had been lost, so its work was rolled back. */
		CLAIM_LOST

	}

	/**
	 * One task run.
	 *
	 * @param task the task
	 * @param outcome what became of it
	 * @param failure why it failed, or {@code null}
	 */
	public record Ran(TaskContext task, Outcome outcome, @Nullable Throwable failure) {
	}

	/** Hears the outcomes the completion mode reports, on the thread that runs the tasks. */
	private final class Recorder implements TaskQueueListener {

		@Override
		public void completed(TaskContext task, Duration duration) {
			add(new Ran(task, Outcome.COMPLETED, null));
		}

		@Override
		public void failed(TaskContext task, Duration duration, Throwable error, boolean dead) {
			add(new Ran(task, dead ? Outcome.DEAD : Outcome.RETRIED, error));
		}

		@Override
		public void claimLost(TaskContext task) {
			add(new Ran(task, Outcome.CLAIM_LOST, null));
		}

		private void add(Ran ran) {
			List<Ran> ranHere = TaskRunner.this.outcomes.get();
			if (ranHere != null) {
				ranHere.add(ran);
			}
		}

	}

}
