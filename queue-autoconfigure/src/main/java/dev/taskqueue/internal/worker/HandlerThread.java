package dev.taskqueue.internal.worker;

import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A handler thread of one queue: it takes the queue's waiting tasks until none is left, or until a handler
 * overran its timeout, which gives the thread up.
 */
final class HandlerThread implements Runnable, CompletionMode.Lane, TimeoutWatch.Watched {

	private static final Log logger = LogFactory.getLog(HandlerThread.class);

	private final Pool executor;

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

	HandlerThread(Pool executor, QueueState queue) {
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
					this.queue.spec.mode().run(task, this);
				}
				catch (Throwable ex) {
					// The completion mode settles every task, whatever its handler throws: this is a bug in TaskQueue.
					// The thread goes on, so that the queue keeps its concurrency.
					logger.error("TaskQueue handler thread caught what its completion mode should have settled", ex);
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

	@Override
	public boolean mayStartAlone(ClaimedTask task) {
		if (isGivenUp()) {
			// A task of this thread's group after the thread overran a timeout: another thread runs it.
			this.executor.requeue(this.queue, task);
			return false;
		}
		return true;
	}

	@Override
	public long typicalHandlerNanos() {
		return this.queue.typicalHandlerNanos();
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
		QueueSettings settings = this.queue.spec.settings();
		long elapsed = System.nanoTime() - startedNanos;
		if (size >= settings.groupSize() || isGivenUp()
				|| elapsed + this.queue.typicalHandlerNanos() > settings.groupMaxDelay().toNanos()) {
			return null;
		}
		return next();
	}

	@Override
	public void begin(ClaimedTask task, @Nullable CommitGroup group) {
		long deadline = System.nanoTime() + this.queue.spec.settings().timeout().toNanos();
		synchronized (this) {
			this.current = task;
			this.currentGroup = group;
			this.deadline = deadline;
		}
		this.executor.timeouts().started(deadline);
	}

	@Override
	public long deadline() {
		return this.deadline;
	}

	@Override
	public void timeOutIfDue(long deadline) {
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
	@Override
	public boolean takeOutcome(ClaimedTask task) {
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
			handlerThread = Objects.requireNonNull(this.thread, "a handler runs on its thread");
			handlerThread.interrupt();
		}
		try {
			this.queue.spec.mode().timedOut(task, handlerThread, group, this);
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

	/** Interrupts the handler if it runs task {@code id}, which was cancelled; else does nothing. */
	synchronized void interruptIfRunning(UUID id) {
		ClaimedTask task = this.current;
		Thread handlerThread = this.thread;
		if (task != null && task.id().equals(id) && !this.givenUp && handlerThread != null) {
			// Under this lock, as end() clears the interrupt under it: it cannot reach the thread's next task.
			handlerThread.interrupt();
		}
	}

	void interrupt() {
		Thread handlerThread = this.thread;
		if (handlerThread != null) {
			handlerThread.interrupt();
		}
	}

	/** The threads of all queues, as one handler thread sees them ({@link HandlerExecutor}). */
	interface Pool {

		/** {@code thread} runs: its timeouts are watched. */
		void started(HandlerThread thread);

		/** {@code thread} ends. */
		void ended(HandlerThread thread);

		/** Takes {@code task} to start it; {@code false} when shutdown or a pause gave it back meanwhile. */
		boolean takeUnstarted(ClaimedTask task);

		/** A task of a thread that was given up goes back to its queue, for another thread. */
		void requeue(QueueState queue, ClaimedTask task);

		/** {@code task}'s outcome is settled: its queue gets a unit of capacity back. */
		void settle(QueueState queue, ClaimedTask task);

		/** A task given back before it started is settled. */
		void settle(QueueState queue);

		/** Watches the handlers' timeouts. */
		TimeoutWatch timeouts();

		/** A thread gives its place among all queues' threads back. */
		void releaseThread();

		/** After a thread was given back: any queue may have tasks waiting for one. */
		void startRunnersEverywhere();

	}

}
