package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;

import javax.sql.DataSource;

import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.support.DatabaseOutage;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Makes each queue's {@link CompletionMode} when the worker starts, from what every mode shares: the task
 * repository, the transactions, the handler invocation and the {@link OutcomeRecorder}. The one place that chooses
 * a queue's mode is {@link #of}.
 */
class CompletionModes {

	private final TaskRepository tasks;

	private final TransactionOperations handlerTransactions;

	private final TransactionOperations ownTransactions;

	private final OutcomeRecorder outcomes;

	/** Where outcomes wait for the claim loop, and {@code BATCHED} completions for their delete. */
	private final Mailbox mailbox;

	/** The tasks of the worker cancelled while they run. */
	private final Cancellations cancellations = new Cancellations();

	/** Writes the progress of running tasks; {@code null} until {@link #writeProgressWith}. */
	private @Nullable ProgressWriter progress;

	private final TaskInvoker invoker;

	/** Completes a task with its transaction's commit in one round trip, when the transactions allow it. */
	private final Completer.@Nullable CompletionCommit completionCommit;

	/** The completer of the modes that run outside a worker ({@link #transactional}). */
	private final Completer outsideWorker;

	private final SerializationRetry retry;

	/** The data source of the handlers' DataSourceTransactionManager, which group commit needs; else null. */
	private final @Nullable DataSource groupDataSource;

	/**
	 * @param tasks the task repository
	 * @param payloads reads payloads as the handler's type
	 * @param handlerTransactions transactions of the application's transaction manager, for handlers
	 * @param ownTransactions transactions for the worker's own bookkeeping
	 * @param listener hears what happens to each task
	 * @param interceptors wrap each handler invocation, first one outermost
	 */
	public CompletionModes(TaskRepository tasks, TaskInvoker.PayloadReader payloads,
			TransactionOperations handlerTransactions, TransactionOperations ownTransactions, TaskQueueListener listener,
			List<TaskHandlerInterceptor> interceptors) {
		this(tasks, payloads, handlerTransactions, ownTransactions, listener, interceptors, null,
				SerializationRetry.none(), 1, Duration.ZERO);
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
	 * @param completionBatchSize the most {@code BATCHED} completions one statement deletes
	 * @param completionFlushInterval how long a {@code BATCHED} completion waits for others before it is written
	 */
	public CompletionModes(TaskRepository tasks, TaskInvoker.PayloadReader payloads,
			TransactionOperations handlerTransactions, TransactionOperations ownTransactions, TaskQueueListener listener,
			List<TaskHandlerInterceptor> interceptors, Completer.@Nullable CompletionCommit completionCommit,
			SerializationRetry retry, int completionBatchSize, Duration completionFlushInterval) {
		this.tasks = tasks;
		this.handlerTransactions = handlerTransactions;
		this.ownTransactions = ownTransactions;
		this.completionCommit = completionCommit;
		this.retry = retry;
		this.mailbox = new Mailbox(tasks, ownTransactions, completionBatchSize, completionFlushInterval);
		this.outcomes = new OutcomeRecorder(tasks, ownTransactions, listener, this.mailbox, this.cancellations);
		this.invoker = new TaskInvoker(payloads, this.outcomes.listener(), interceptors, this.cancellations);
		this.outsideWorker = Completer.outsideWorker(tasks, completionCommit, this.mailbox);
		this.groupDataSource = (handlerTransactions instanceof TransactionTemplate template
				&& template.getTransactionManager() instanceof DataSourceTransactionManager manager)
						? manager.getDataSource() : null;
	}

	/**
	 * The completer of a worker: the completions it writes may hand tasks to it.
	 * @param queues the settings of the queues the worker runs, by name; {@code null} for another queue
	 * @param claiming whether the worker claims for a queue now
	 * @param run runs tasks of one queue that a completion handed to the worker
	 */
	Completer completer(Function<String, @Nullable QueueSettings> queues, Predicate<String> claiming,
			BiConsumer<String, List<ClaimedTask>> run) {
		return new Completer(this.tasks, this.completionCommit, this.mailbox, queues, claiming, run);
	}

	/**
	 * The mode of {@code handler}'s queue, whose completions {@code completer} writes: {@code BATCHED} completions
	 * wait in the mailbox for their delete; a group size above 1 commits groups; else each task commits alone with
	 * its completion.
	 */
	CompletionMode of(TaskHandlerMethod handler, QueueSettings settings, Completer completer) {
		if (handler.batchedCompletion()) {
			return new BatchedRun(this.invoker, this.outcomes, this.mailbox, completer, this.ownTransactions, handler,
					settings);
		}
		TransactionalRun alone = transactional(handler, settings, completer);
		return (settings.groupSize() > 1) ? new GroupCommit(this.tasks, this.invoker, this.outcomes,
				this.handlerTransactions, this.groupDataSource, this.ownTransactions, alone, completer, handler,
				settings) : alone;
	}

	/**
	 * Each task of {@code handler}'s queue in a transaction of its own with its completion, whatever its mode, run
	 * outside a worker ({@code TaskRunner}).
	 */
	TransactionalRun transactional(TaskHandlerMethod handler, QueueSettings settings) {
		return transactional(handler, settings, this.outsideWorker);
	}

	private TransactionalRun transactional(TaskHandlerMethod handler, QueueSettings settings, Completer completer) {
		return new TransactionalRun(this.handlerTransactions, this.outcomes, this.invoker, completer, this.retry,
				handler, settings);
	}

	/** Where outcomes wait for the claim loop. */
	Mailbox mailbox() {
		return this.mailbox;
	}

	/** The tasks of the worker cancelled while they run, which every mode asks about. */
	Cancellations cancellations() {
		return this.cancellations;
	}

	/** Records the outcomes that do not come with a completion, for every mode. */
	OutcomeRecorder outcomes() {
		return this.outcomes;
	}

	/** Gives back, now, the tasks whose handlers the worker's shutdown interrupted (see OutcomeRecorder). */
	void giveBackAtShutdown(List<ClaimedTask> interrupted) {
		this.outcomes.giveBackAtShutdown(interrupted);
	}

	/** Says outcomes (and progress) that cannot be written for want of the database through {@code outage}. */
	public void reportOutagesTo(DatabaseOutage outage) {
		this.outcomes.reportOutagesTo(outage);
		if (this.progress != null) {
			this.progress.reportOutagesTo(outage);
		}
	}

	/**
	 * Writes the progress that the handlers of a worker report with {@code repository}, the latest of each task at
	 * most once per {@code interval}; without this, a handler's progress is kept in its context only.
	 */
	public void writeProgressWith(ProgressRepository repository, Duration interval) {
		ProgressWriter writer = new ProgressWriter(repository, interval);
		this.progress = writer;
		this.invoker.reportProgressTo(writer);
	}

	/** Fails the attempts whose result's JSON is longer than {@code maxBytes} in UTF-8 (see TaskContext#result). */
	public void limitResults(long maxBytes) {
		this.invoker.limitResults(maxBytes);
	}

	/** Starts writing the progress of running tasks, if it is written. */
	void startProgress() {
		if (this.progress != null) {
			this.progress.start();
		}
	}

	/** Stops writing progress, once what is left is written. */
	void stopProgress() {
		if (this.progress != null) {
			this.progress.stop();
		}
	}

	/** Passes the errors TaskQueue logs for failed tasks through {@code redactor}, as the dashboard does. */
	public void redactLogsWith(TaskRedactor redactor) {
		this.outcomes.redactLogsWith(redactor);
	}

}
