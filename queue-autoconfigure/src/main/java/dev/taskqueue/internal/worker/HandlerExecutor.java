package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Runs claimed tasks on handler threads (virtual threads when the application enables them). Claimed tasks wait
 * in their queue; a queue has at most {@code concurrency} threads, and all queues together at most
 * {@code maxHandlers}, each taking the queue's waiting tasks one after the other, alone or in groups that commit
 * together. Every task runs under its queue's timeout: a handler that overruns it is interrupted and its thread
 * given up, and a new thread takes over the queue's waiting tasks; a handler that ignores the interrupt keeps its
 * thread, its pooled connection and so its place under {@code maxHandlers} until it returns.
 * <p>
 * Each thread runs a {@link HandlerThread}, nested here as {@code ThreadPoolExecutor} nests its workers: a thread
 * takes its tasks, permits and timeouts from this executor, and this executor starts, counts and interrupts them.
 */
final class HandlerExecutor {

	/** Wakes the claim loop. */
	private final Runnable wakeUp;

	private final List<QueueState> queues;

	private final Executor executor;

	private final Set<HandlerThread> runners = ConcurrentHashMap.newKeySet();

	private final TimeoutWatch timeouts = new TimeoutWatch(this.runners);

	/** Handler threads over all queues, bounded so that handlers never wait for a pooled connection. */
	private final Semaphore handlerThreads;

	private final Map<UUID, ClaimedTask> unstarted = new ConcurrentHashMap<>();

	private final AtomicInteger inFlight = new AtomicInteger();

	private final AtomicInteger nextQueue = new AtomicInteger();

	/** What waits for the claim loop: a settled task wakes it when something there waits for a claim. */
	private final Mailbox mailbox;

	HandlerExecutor(Runnable wakeUp, List<QueueState> queues, int maxHandlers, boolean virtualThreads,
			Mailbox mailbox) {
		this.mailbox = mailbox;
		this.wakeUp = wakeUp;
		this.queues = List.copyOf(queues);
		this.handlerThreads = new Semaphore(maxHandlers);
		this.executor = virtualThreads ? virtualThreadExecutor()
				: Executors.newCachedThreadPool(Threads.named("tq-handler-", true));
		this.timeouts.start();
	}

	/** Hands claimed {@code tasks} of {@code queue}, in the order they are to run, to its handler threads. */
	void submit(QueueState queue, List<ClaimedTask> tasks) {
		submit(queue, tasks, false);
	}

	/**
	 * Hands claimed {@code tasks} of {@code queue}, in the order they are to run, to its handler threads: after the
	 * tasks waiting for a thread, or with {@code first} before them.
	 */
	void submit(QueueState queue, List<ClaimedTask> tasks, boolean first) {
		for (int i = 0; i < tasks.size(); i++) {
			ClaimedTask task = tasks.get(first ? tasks.size() - 1 - i : i);
			queue.inFlight.incrementAndGet();
			this.inFlight.incrementAndGet();
			this.unstarted.put(task.id(), task);
			if (first) {
				queue.waiting.addFirst(task);
			}
			else {
				queue.waiting.add(task);
			}
		}
		startRunners(queue);
	}

	private @Nullable QueueState queue(@Nullable String name) {
		for (QueueState queue : this.queues) {
			if (queue.name().equals(name)) {
				return queue;
			}
		}
		return null;
	}

	/** How many more handler threads may start now, over all queues. */
	int freeThreads() {
		return this.handlerThreads.availablePermits();
	}

	/** Takes the claimed tasks that have not started; they will not start any more. */
	List<ClaimedTask> drainUnstarted() {
		return drainUnstarted(null);
	}

	/** Takes the claimed tasks of {@code queue} (of every queue when {@code null}) that have not started. */
	List<ClaimedTask> drainUnstarted(@Nullable String queue) {
		List<ClaimedTask> drained = new ArrayList<>();
		for (ClaimedTask task : List.copyOf(this.unstarted.values())) {
			if ((queue == null || queue.equals(task.queue())) && this.unstarted.remove(task.id()) != null) {
				drained.add(task);
				QueueState state = queue(task.queue());
				if (state != null) {
					state.spec.mode().givenBack(task);
				}
			}
		}
		return drained;
	}

	/** Waits until no handler is in flight, or {@code timeout} has passed; {@code true} if none is. */
	boolean awaitIdle(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.inFlight.get() > 0) {
			if (System.nanoTime() >= deadline) {
				return false;
			}
			Thread.sleep(10);
		}
		return true;
	}

	/** Shutdown: takes the outcomes of the handlers still running alone, interrupts them, and returns their tasks. */
	List<ClaimedTask> takeRunningForShutdown() {
		List<ClaimedTask> taken = new ArrayList<>();
		for (HandlerThread runner : this.runners) {
			ClaimedTask task = runner.takeForShutdown();
			if (task != null) {
				taken.add(task);
			}
		}
		return taken;
	}

	/** Interrupts the handler running task {@code id}, which was cancelled, if one runs it here. */
	void interrupt(UUID id) {
		for (HandlerThread runner : this.runners) {
			runner.interruptIfRunning(id);
		}
	}

	/** Interrupts the handlers still running and stops the threads. */
	void shutdownNow() {
		this.runners.forEach(HandlerThread::interrupt);
		this.timeouts.stop();
		if (this.executor instanceof ExecutorService service) {
			service.shutdownNow();
		}
	}

	/** Starts threads for the waiting tasks of {@code queue}, as many as its permits and the bound allow. */
	private void startRunners(QueueState queue) {
		while (!queue.waiting.isEmpty()) {
			if (!queue.running.tryAcquire()) {
				return;
			}
			if (!this.handlerThreads.tryAcquire()) {
				queue.running.release();
				return;
			}
			HandlerThread runner = new HandlerThread(this, queue);
			try {
				this.executor.execute(runner);
			}
			catch (RejectedExecutionException ex) {
				runner.releasePermits(); // shutting down: the tasks stay unstarted and are released
				return;
			}
		}
	}

	/** After a thread was given back: any queue may have tasks waiting for one, starting with another each time. */
	private void startRunnersEverywhere() {
		int first = Math.floorMod(this.nextQueue.getAndIncrement(), this.queues.size());
		for (int i = 0; i < this.queues.size(); i++) {
			startRunners(this.queues.get((first + i) % this.queues.size()));
		}
	}

	/**
	 * {@code task}'s outcome is settled. When that may have made other tasks of its queue ready, which no NOTIFY tells
	 * (see {@link Completer#readiesOthers}), its queue may have more to claim.
	 */
	private void settle(QueueState queue, ClaimedTask task) {
		if (Completer.readiesOthers(task)) {
			queue.mayHaveMore = true;
		}
		settle(queue);
	}

	/** The task's outcome is settled: it gives its queue a unit of capacity back. */
	private void settle(QueueState queue) {
		int inFlight = queue.inFlight.decrementAndGet();
		this.inFlight.decrementAndGet();
		// Only when a claim is worth it: a wake-up per task would cost the claim loop a thread switch per task.
		// What waits in the mailbox for a claim wakes it whatever the last claim found: nothing else would.
		if ((queue.mayHaveMore || this.mailbox.waitsForClaim()) && queue.worthClaiming(inFlight)) {
			this.wakeUp.run();
		}
	}

	/** Watches the handlers' timeouts. */
	private TimeoutWatch timeouts() {
		return this.timeouts;
	}

	/** {@code thread} runs: its timeouts are watched. */
	private void started(HandlerThread thread) {
		this.runners.add(thread);
	}

	/** {@code thread} ends. */
	private void ended(HandlerThread thread) {
		this.runners.remove(thread);
	}

	/** A task of a thread that was given up goes back to its queue, for another thread. */
	private void requeue(QueueState queue, ClaimedTask task) {
		this.unstarted.put(task.id(), task);
		queue.waiting.add(task);
		startRunners(queue);
	}

	/**
	 * Takes {@code task} to start it; {@code false} when shutdown or a pause gave it back meanwhile. The claim is
	 * compared whole, so that a leftover of a given-back claim never takes the place of a new claim of the task.
	 */
	private boolean takeUnstarted(ClaimedTask task) {
		return this.unstarted.remove(task.id(), task);
	}

	/**
	 * A handler thread gives its place among all queues' threads back. The claim loop may have skipped a queue
	 * with more tasks waiting for want of one: it looks again.
	 */
	private void releaseThread() {
		this.handlerThreads.release();
		for (QueueState queue : this.queues) {
			if (queue.mayHaveMore || this.mailbox.waitsForClaim()) {
				this.wakeUp.run();
				return;
			}
		}
	}

	private static Executor virtualThreadExecutor() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("tq-handler-");
		executor.setVirtualThreads(true);
		return executor;
	}

	/**
	 * A handler thread of one queue: it takes the queue's waiting tasks until none is left, or until a handler
	 * overran its timeout, which gives the thread up.
	 */
	static final class HandlerThread implements Runnable, CompletionMode.Lane, TimeoutWatch.Watched {

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
						this.queue.spec.mode().run(task, this);
					}
					catch (Throwable ex) {
						// The completion mode settles every task, whatever its handler throws: this is a bug in
						// TaskQueue. The thread goes on, so that the queue keeps its concurrency.
						logger.error("TaskQueue handler thread caught what its completion mode should have settled",
								ex);
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
		 * The worker shuts down and this thread's handler still runs: takes its task's outcome, as a timeout does, so
		 * that the handler, interrupted, rolls back and records nothing, and returns the task for the worker to give
		 * back before its session ends; {@code null} when no handler runs alone here. A group's handler is only
		 * interrupted: its group's outcomes are settled together (GroupGiveUp).
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

	}

}
