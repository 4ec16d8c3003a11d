package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.taskqueue.HandlerTimeoutException;
import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.RetryPolicy;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.TaskQueueListeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionOperations;

/**
 * Records the {@link Outcome}s that are not written with the task's own transaction (retry later, dead letter,
 * claim lost, released, a batched delete written later) and tells the listeners. It is the one place where a
 * failure becomes a retry: {@link #failed} asks the queue's {@link RetryPolicy}. None of its methods throws: a task
 * whose outcome is not recorded would stay claimed for as long as its session lives. An outcome that cannot be
 * written now (the database is away) waits in the {@link Mailbox} and is written by {@link #recordPending()}, which
 * the claim loop calls before each claim. Every write is fenced by the claim, so writing one for a task that already
 * has an outcome changes nothing.
 */
final class OutcomeRecorder {

	private static final Log logger = LogFactory.getLog(OutcomeRecorder.class);

	private static final long LOG_INTERVAL_NANOS = 60_000_000_000L;

	private final TaskRepository tasks;

	private final TransactionOperations ownTransactions;

	private final TaskQueueListener listener;

	/** Where outcomes wait for the claim loop: those not written yet, and what its claims carry. */
	private final Mailbox mailbox;

	private volatile long lastUnrecordedWarning;

	private volatile DatabaseOutage outage = new DatabaseOutage();

	private volatile TaskRedactor redactor = TaskRedactor.NONE;

	/** The tasks of this worker cancelled while they run: their attempts end as cancelled, whatever else ends them. */
	private final Cancellations cancellations;

	OutcomeRecorder(TaskRepository tasks, TransactionOperations ownTransactions, TaskQueueListener listener,
			Mailbox mailbox, Cancellations cancellations) {
		this.cancellations = cancellations;
		this.tasks = tasks;
		this.ownTransactions = ownTransactions;
		this.mailbox = mailbox;
		// Listeners are the application's code: whatever they throw must not reach the worker.
		this.listener = (listener instanceof TaskQueueListeners all) ? all : new TaskQueueListeners(List.of(listener));
	}

	void reportOutagesTo(DatabaseOutage outage) {
		this.outage = outage;
	}

	void redactLogsWith(TaskRedactor redactor) {
		this.redactor = redactor;
	}

	/** The listeners, safe to call: they never throw. */
	TaskQueueListener listener() {
		return this.listener;
	}

	/**
	 * {@code failure} ended the attempt: the task is retried after its backoff, or goes to the dead letters when
	 * it was its last attempt or the failure is a {@link NonRetryableTaskException}.
	 */
	void failed(ClaimedTask task, TaskContext context, QueueSettings settings, Throwable failure, Duration duration) {
		if (failure instanceof Cancellations.Cancelled || isCancelled(task)) {
			// Whatever ended it (the interrupt, a timeout, the check after the handler): no retry, no dead letter.
			cancelled(task, context, duration);
			return;
		}
		boolean dead;
		try {
			String error = ErrorText.of(failure);
			Duration delay = nextAttemptDelay(task, context, settings, failure);
			dead = (delay == null);
			if (failure instanceof NonRetryableTaskException) {
				logger.warn(describe(task) + " failed and will not be retried: " + summary(task, failure));
			}
			else if (dead && task.attempt() < settings.maxAttempts()) {
				logger.warn(describe(task) + " failed and its queue's retry policy sends it to the dead letters: "
						+ summary(task, failure));
			}
			else if (dead && this.redactor == TaskRedactor.NONE) {
				logger.warn(describe(task) + " failed on its last attempt and goes to the dead letters: "
						+ ErrorText.summary(failure), failure);
			}
			else if (dead) { // the stack trace as the redactor shows it, not as the exception would print it
				logger.warn(describe(task) + " failed on its last attempt and goes to the dead letters: "
						+ this.redactor.error(task.queue(), error));
			}
			else {
				// One line: the full trace is kept with the task (last_error) and shown with the dead letter.
				logger.warn(describe(task) + " failed; retrying in " + readable(delay) + ": "
						+ summary(task, failure));
			}
			boolean timedOut = failure instanceof HandlerTimeoutException;
			if (dead) {
				write(new Outcome.Dead(task, error, Integer.MAX_VALUE, timedOut));
			}
			else {
				write(new Outcome.RetryLater(task, delay, error, timedOut));
			}
		}
		catch (Throwable ex) {
			// Deciding the outcome failed (a retry policy that throws, say): retry the task soon all the same.
			logger.error(describe(task) + " failed and its outcome could not be worked out; retrying it", ex);
			dead = false;
			write(new Outcome.RetryLater(task, Duration.ofSeconds(1), ErrorText.of(failure), false));
		}
		this.listener.failed(context, duration, failure, dead);
	}

	/**
	 * The one place where a failure becomes a retry: {@code null} (dead) for a {@link NonRetryableTaskException}
	 * or the last attempt, else what the queue's {@link RetryPolicy} says; a negative delay counts as none.
	 */
	private static @Nullable Duration nextAttemptDelay(ClaimedTask task, TaskContext context, QueueSettings settings,
			Throwable failure) {
		if (failure instanceof NonRetryableTaskException || task.attempt() >= settings.maxAttempts()) {
			return null;
		}
		Duration delay = settings.retryPolicy().nextAttemptDelay(context, failure);
		return (delay == null || !delay.isNegative()) ? delay : Duration.ZERO;
	}

	/**
	 * The task cannot run (its payload cannot be read, or it has no attempt left): to the dead letters, with at most
	 * {@code maxAttempts} attempts, since a claim past the last attempt runs nothing.
	 */
	void deadLetter(ClaimedTask task, TaskContext context, Exception reason, int maxAttempts) {
		logger.warn(describe(task) + " goes to the dead letters: " + summary(task, reason));
		String error = ErrorText.of(reason);
		write(new Outcome.Dead(task, error, maxAttempts, false));
		this.listener.failed(context, Duration.ZERO, reason, true);
	}

	/** The task's transaction committed with its completion. */
	/** Records the outcome of a task of a group that committed: its dead letter, its failure or its completion. */
	void recorded(CommitGroup.Entry entry, QueueSettings settings) {
		if (entry.rejected()) {
			deadLetter(entry.task(), entry.context(), entry.rejection(), settings.maxAttempts());
		}
		else if (entry.failure() != null) {
			failed(entry.task(), entry.context(), settings, entry.failure(), entry.duration());
		}
		else {
			completed(entry.context(), entry.duration());
		}
	}

	void completed(TaskContext context, Duration duration) {
		this.listener.completed(context, duration);
	}

	/**
	 * The deletes of {@code BATCHED} completions {@code written} by one statement, which deleted the tasks
	 * {@code deleted}: those completed, the others had lost their claims and run again.
	 */
	void deleted(List<Outcome.DeletePending> written, Set<UUID> deleted) {
		for (Outcome.DeletePending done : written) {
			if (deleted.contains(done.task().id())) {
				this.listener.completed(done.context(), done.duration());
			}
			else if (wasCancelled(done.task())) {
				cancelled(done.task(), done.context(), done.duration());
			}
			else {
				logger.warn(describe(done.task()) + " lost its claim before its completion was written; it runs again");
				this.listener.claimLost(done.context());
			}
		}
	}

	void claimLost(ClaimedTask task, TaskContext context) {
		if (wasCancelled(task)) {
			cancelled(task, context, Duration.ZERO);
			return;
		}
		logger.warn(describe(task) + " lost its claim while its handler ran; its transaction was rolled back "
				+ "and another instance runs it");
		this.listener.claimLost(context);
	}

	/** Whether {@code task} was cancelled while claimed here, as far as this worker has heard. */
	boolean isCancelled(ClaimedTask task) {
		return this.cancellations.isCancelled(task.id());
	}

	/**
	 * Whether {@code task}, whose completion found its claim gone, was cancelled rather than lost to another session:
	 * asks the database unless the word has come already. Marks it, so that a rerun of its group skips it.
	 */
	boolean wasCancelled(ClaimedTask task) {
		if (isCancelled(task)) {
			return true;
		}
		try {
			if (Boolean.TRUE.equals(this.ownTransactions.execute((status) -> this.tasks.wasCancelled(task)))) {
				this.cancellations.found(task.id());
				return true;
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not tell whether " + describe(task) + " was cancelled: " + ErrorText.summary(ex));
		}
		return false;
	}

	/**
	 * {@code task} was cancelled while claimed here: whatever its handler did was rolled back (or, {@code BATCHED},
	 * is not completed), and it runs no more. The cancel deleted it; its session stops looking for the request.
	 */
	void cancelled(ClaimedTask task, TaskContext context, Duration duration) {
		logger.info(describe(task) + " was cancelled while claimed here; its work was rolled back and it does not "
				+ "run again");
		write(new Outcome.Cancelled(task));
		this.listener.cancelled(context, duration);
	}

	/** Makes claimed tasks that did not run to their end ready again, without using up an attempt. */
	void release(List<ClaimedTask> released) {
		released.stream()
			.collect(Collectors.groupingBy(ClaimedTask::claimedBy,
					Collectors.mapping(ClaimedTask::id, Collectors.toList())))
			.forEach((session, ids) -> write(new Outcome.Released(session, ids)));
	}

	/**
	 * Counts {@code task} as failed because its handler ran past its queue's timeout. Its thread has been interrupted;
	 * should the handler still finish, it finds the outcome taken and rolls back.
	 */
	void timedOut(ClaimedTask task, QueueSettings settings, Thread handlerThread) {
		failed(task, TaskInvoker.context(task), settings, timeout(task, settings, handlerThread), settings.timeout());
	}

	/** The failure of {@code task}, whose handler overran its queue's timeout on {@code handlerThread}. */
	static HandlerTimeoutException timeout(ClaimedTask task, QueueSettings settings, Thread handlerThread) {
		HandlerTimeoutException timeout = new HandlerTimeoutException(task.queue(), settings.timeout());
		timeout.setStackTrace(handlerThread.getStackTrace()); // where the handler was stuck
		return timeout;
	}

	/**
	 * The worker's shutdown interrupted the handlers of {@code interrupted} and took their outcomes: each is given
	 * back, ready at once and, up to a bound, without counting an attempt, since a deploy is no fault of the task.
	 * Written now and not kept for later: the session ends next, and a write after that finds no claim to fence.
	 */
	void giveBackAtShutdown(List<ClaimedTask> interrupted) {
		int given = 0;
		for (ClaimedTask task : interrupted) {
			try {
				if (Boolean.TRUE.equals(this.ownTransactions.execute((status) -> this.tasks.giveBackAtShutdown(task)))) {
					given++;
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Could not give back " + describe(task) + "; it becomes ready when this session ends, "
						+ "with its attempt counted: " + ErrorText.summary(ex));
			}
		}
		if (given > 0) {
			logger.info("Gave back " + given + " tasks whose handlers the shutdown interrupted; they run again at once");
		}
	}

	/**
	 * Runs {@code task}'s attempt: reads its payload as {@code handler}'s type and gives it to {@code attempt}. A task
	 * that cannot run (its payload cannot be read, or it has no attempt left) goes to the dead letters instead, and
	 * whatever {@code attempt} throws that its own steps did not settle counts as a failed attempt ({@link #unexpected}).
	 */
	void attempt(ClaimedTask task, TaskInvoker invoker, TaskHandlerMethod handler, QueueSettings settings,
			Attempt attempt) {
		TaskContext context = invoker.handlerContext(task);
		if (isCancelled(task)) { // cancelled before it started: its handler never ran, so it reported no progress
			cancelled(task, context, Duration.ZERO);
			return;
		}
		try {
			Object payload = invoker.prepare(task, handler, settings, context,
					(reason) -> deadLetter(task, context, reason, settings.maxAttempts()));
			if (payload != TaskInvoker.NOT_RUNNABLE) {
				attempt.run(context, payload);
			}
		}
		catch (Throwable ex) {
			// Each step settles its own failures; this is for what none of them expected.
			unexpected(task, context, settings, ex);
		}
		finally {
			TaskInvoker.ended(context);
		}
	}

	/** One attempt of a task whose payload was read, see {@link #attempt}. */
	@FunctionalInterface
	interface Attempt {

		void run(TaskContext context, Object payload);

	}

	/**
	 * Something the worker did not expect was thrown between the task's claim and its outcome: a bug, or an
	 * error such as {@link OutOfMemoryError}. The task counts as failed with it, so that it is retried or, when
	 * this keeps happening, ends in the dead letters instead of staying claimed.
	 */
	void unexpected(ClaimedTask task, TaskContext context, QueueSettings settings, Throwable failure) {
		try {
			logger.error("TaskQueue failed while running " + describe(task) + "; the attempt counts as failed",
					failure);
		}
		catch (Throwable ex) {
			// Not even logging works (out of memory, say): the outcome matters more.
		}
		failed(task, context, settings, failure, Duration.ZERO);
	}

	/** Tries again to write the outcomes that could not be written before; keeps those that still fail. */
	void recordPending() {
		this.mailbox.takeUnwritten().forEach(this::write);
	}

	int pending() {
		return this.mailbox.unwritten();
	}

	private void write(Outcome.Written outcome) {
		try {
			this.ownTransactions.executeWithoutResult((status) -> outcome.writeWith(this.tasks));
		}
		catch (Throwable ex) {
			this.mailbox.post(outcome);
			if (this.outage.failed("record a task outcome (" + this.mailbox.unwritten() + " waiting)", ex)) {
				return; // written when the database is back; the outage is said once
			}
			// Said once a minute at most: while the database is away this would fail on every poll.
			long now = System.nanoTime();
			if (now - this.lastUnrecordedWarning > LOG_INTERVAL_NANOS || this.lastUnrecordedWarning == 0) {
				this.lastUnrecordedWarning = now;
				logger.warn("Could not record a task outcome (" + this.mailbox.unwritten() + " waiting), will try "
						+ "again: " + ErrorText.summary(ex));
			}
		}
	}

	/** The failure's first line, as the application's TaskRedactor lets it be shown. */
	private String summary(ClaimedTask task, Throwable failure) {
		return this.redactor.error(task.queue(), ErrorText.summary(failure));
	}

	static String describe(ClaimedTask task) {
		return "Task " + task.id() + " on queue '" + task.queue() + "' (attempt " + task.attempt() + ")";
	}

	/** "850 ms", "12 s", "37 min 18 s", "2 h 5 min": a backoff as a reader takes it in at a glance. */
	static String readable(Duration delay) {
		long millis = delay.toMillis();
		if (millis < 1000) {
			return millis + " ms";
		}
		long seconds = delay.toSeconds();
		if (seconds < 60) {
			return seconds + " s";
		}
		if (seconds < 3600) {
			return seconds / 60 + " min " + seconds % 60 + " s";
		}
		return seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
	}

}
