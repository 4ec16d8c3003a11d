package dev.taskqueue.worker;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.taskqueue.jdbc.ClaimedTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A handler thread of one queue: it takes the queue's waiting tasks until none is left, or until a handler
 * overran its timeout, which gives the thread up.
 */
final class HandlerThread implements Runnable, TaskDispatcher.Steps {

	private static final Log logger = LogFactory.getLog(HandlerThread.class);

	private final HandlerExecutor executor;

	private final QueueState queue;

	private final AtomicBoolean queuePermitReleased = new AtomicBoolean();

	private final AtomicBoolean threadPermitReleased = new AtomicBoolean();

	private volatile @Nullable Thread thread;

	// Guarded by this: the task whose handler runs and whether the thread was given up.
	private @Nullable ClaimedTask current;

	private @Nullable CommitGroup currentGroup;

	private boolean givenUp;

	/** When the running handler times out ({@link System#nanoTime()}), {@link TimeoutWatch#NONE} between tasks. */
	private volatile long deadline = TimeoutWatch.NONE;

	HandlerThread(HandlerExecutor executor, QueueState queue) {
		this.executor = executor;
		this.queue = queue;
	}

	@Override
	public void run() {
		this.thread = Thread.currentThread();
		this.executor.started(this);
		try {
			ClaimedTask task;
			while (!isGivenUp() && (task = next()) != null) {
				try {
					if (this.queue.grouped()) {
						for (ClaimedTask again : this.executor.dispatcher().runGroup(this.queue, task, this)) {
							runAlone(again); // its group could not commit: alone, it fails or commits on its own
						}
					}
					else {
						runAlone(task);
					}
				}
				catch (Throwable ex) {
					// The dispatcher settles every task, whatever its handler throws: this is a bug in TaskQueue.
					// The thread goes on, so that the queue keeps its concurrency.
					logger.error("TaskQueue handler thread caught what the dispatcher should have settled", ex);
				}
			}
		}
		finally {
			this.executor.ended(this);
			Thread.interrupted(); // a timeout's interrupt must not reach the next use of this thread
			releasePermits();
			this.executor.startRunnersEverywhere();
		}
	}

	/** Runs {@code task} in a transaction of its own, under its timeout, and settles it. */
	private void runAlone(ClaimedTask task) {
		if (isGivenUp()) {
			// A task of this thread's group after the thread overran a timeout: another thread runs it.
			this.executor.requeue(this.queue, task);
			return;
		}
		long start = System.nanoTime();
		try {
			begin(task, null);
			this.executor.dispatcher().run(task, this.queue.handler, this.queue.settings,
					this.queue.handler.batchedCompletion() ? this.executor.batched() : null,
					() -> takeOutcome(task), this.executor);
		}
		finally {
			if (end(task)) { // else the timeout settled it
				this.queue.handled(System.nanoTime() - start);
				this.executor.settle(this.queue, task);
			}
		}
	}

	/** The next waiting task of the queue, skipping those released by shutdown; {@code null} when none is. */
	private @Nullable ClaimedTask next() {
		ClaimedTask task;
		while ((task = this.queue.waiting.poll()) != null) {
			if (this.executor.takeUnstarted(task)) {
				return task;
			}
			this.executor.settle(this.queue); // released by shutdown before it started
		}
		return null;
	}

	@Override
	public @Nullable ClaimedTask nextInGroup(int size, long startedNanos) {
		QueueSettings settings = this.queue.settings;
		long elapsed = System.nanoTime() - startedNanos;
		if (size >= settings.groupSize() || isGivenUp()
				|| elapsed + this.queue.typicalHandlerNanos() > settings.groupMaxDelay().toNanos()) {
			return null;
		}
		return next();
	}

	@Override
	public void begin(ClaimedTask task, @Nullable CommitGroup group) {
		long deadline = System.nanoTime() + this.queue.settings.timeout().toNanos();
		synchronized (this) {
			this.current = task;
			this.currentGroup = group;
			this.deadline = deadline;
		}
		this.executor.timeouts().started(deadline);
	}

	/** When the running handler times out, {@link TimeoutWatch#NONE} when none runs. */
	long deadline() {
		return this.deadline;
	}

	/** Called by the {@link TimeoutWatch} once {@code deadline} has passed. */
	void timeOutIfDue(long deadline) {
		ClaimedTask task;
		synchronized (this) {
			if (this.deadline != deadline || this.current == null) {
				return; // the handler finished, or another started, meanwhile
			}
			task = this.current;
		}
		timeOut(task);
	}

	/**
	 * Takes {@code task}'s outcome for its handler thread, so that its timeout no longer fires; {@code false}
	 * when the timeout has taken it already.
	 */
	private boolean takeOutcome(ClaimedTask task) {
		synchronized (this) {
			if (this.givenUp) {
				return false;
			}
			if (this.current == task) {
				this.deadline = TimeoutWatch.NONE;
				this.current = null;
			}
			return true;
		}
	}

	@Override
	public boolean end(ClaimedTask task) {
		synchronized (this) {
			this.deadline = TimeoutWatch.NONE;
			this.current = null;
			this.currentGroup = null;
			Thread.interrupted(); // a timeout's interrupt that came too late must not reach the next task
			return !this.givenUp;
		}
	}

	@Override
	public void settled(ClaimedTask task) {
		this.executor.settle(this.queue, task);
	}

	@Override
	public void handled(long nanos) {
		this.queue.handled(nanos);
	}

	@Override
	public boolean mayHandOff() {
		return this.executor.mayHandOff(this.queue);
	}

	@Override
	public void leftHeadless(List<ClaimedTask> completed) {
		this.executor.leftHeadless(completed);
	}

	private void timeOut(ClaimedTask task) {
		Thread handlerThread;
		CommitGroup group;
		synchronized (this) {
			if (this.current != task || this.givenUp) {
				return; // finished meanwhile
			}
			this.givenUp = true;
			this.deadline = TimeoutWatch.NONE;
			group = this.currentGroup;
			if (group != null) {
				KeyRuns.timedOut(this.queue, group, task);
			}
			handlerThread = Objects.requireNonNull(this.thread, "a handler runs on its thread");
			handlerThread.interrupt();
		}
		try {
			this.executor.dispatcher().timedOut(task, this.queue.settings, handlerThread, group, this);
		}
		finally {
			// The stuck thread leaves the queue's concurrency to another thread, but keeps its place among all
			// queues' threads until it returns: it still holds its pooled connection.
			releaseQueuePermit();
			this.executor.startRunnersEverywhere();
		}
	}

	/**
	 * The worker shuts down and this thread's handler still runs: takes its task's outcome, as a timeout does, so that
	 * the handler, interrupted, rolls back and records nothing, and returns the task for the worker to give back
	 * before its session ends; {@code null} when no handler runs alone here. A group's handler is only interrupted:
	 * its group's outcomes are settled together (GroupGiveUp).
	 */
	@Nullable ClaimedTask takeForShutdown() {
		ClaimedTask task;
		synchronized (this) {
			if (this.current == null || this.givenUp || this.currentGroup != null) {
				return null;
			}
			task = this.current;
			this.givenUp = true;
			this.deadline = TimeoutWatch.NONE;
		}
		interrupt();
		this.executor.settle(this.queue, task);
		return task;
	}

	private synchronized boolean isGivenUp() {
		return this.givenUp;
	}

	void releasePermits() {
		releaseQueuePermit();
		if (this.threadPermitReleased.compareAndSet(false, true)) {
			this.executor.releaseThread();
		}
	}

	private void releaseQueuePermit() {
		if (this.queuePermitReleased.compareAndSet(false, true)) {
			this.queue.running.release();
		}
	}

	void interrupt() {
		Thread handlerThread = this.thread;
		if (handlerThread != null) {
			handlerThread.interrupt();
		}
	}

}
