package dev.taskqueue.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.jdbc.ClaimedTask;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Runs claimed tasks on handler threads (virtual threads when the application enables them). Claimed tasks wait
 * in their queue; a queue has at most {@code concurrency} threads, and all queues together at most
 * {@code maxHandlers}, each taking the queue's waiting tasks one after the other, alone or in groups that commit
 * together. Every task runs under its queue's timeout: a handler that overruns it is interrupted and its thread
 * given up, and a new thread takes over the queue's waiting tasks; a handler that ignores the interrupt keeps its
 * thread and, until it returns, its pooled connection.
 */
final class HandlerExecutor {

	private static final Log logger = LogFactory.getLog(HandlerExecutor.class);

	private final TaskDispatcher dispatcher;

	private final BatchedCompletions batched;

	private final WakeUp wakeUp;

	private final List<QueueState> queues;

	private final Executor executor;

	private final ScheduledExecutorService timeouts;

	/** Handler threads over all queues, bounded so that handlers never wait for a pooled connection. */
	private final Semaphore handlerThreads;

	private final Map<UUID, ClaimedTask> unstarted = new ConcurrentHashMap<>();

	private final Set<Runner> runners = ConcurrentHashMap.newKeySet();

	private final AtomicInteger inFlight = new AtomicInteger();

	private final AtomicInteger nextQueue = new AtomicInteger();

	HandlerExecutor(TaskDispatcher dispatcher, BatchedCompletions batched, WakeUp wakeUp, List<QueueState> queues,
			int maxHandlers, boolean virtualThreads) {
		this.dispatcher = dispatcher;
		this.batched = batched;
		this.wakeUp = wakeUp;
		this.queues = List.copyOf(queues);
		this.handlerThreads = new Semaphore(maxHandlers);
		this.executor = virtualThreads ? virtualThreadExecutor()
				: Executors.newCachedThreadPool(Threads.named("tq-handler-", true));
		ScheduledThreadPoolExecutor timeouts = new ScheduledThreadPoolExecutor(1, Threads.named("tq-timeout-", true));
		timeouts.setRemoveOnCancelPolicy(true); // one timeout per task: cancelled ones must not pile up
		this.timeouts = timeouts;
	}

	/** Hands claimed {@code tasks} of {@code queue}, in the order they are to run, to its handler threads. */
	void submit(QueueState queue, List<ClaimedTask> tasks) {
		for (ClaimedTask task : tasks) {
			queue.inFlight.incrementAndGet();
			this.inFlight.incrementAndGet();
			this.unstarted.put(task.id(), task);
			queue.waiting.add(task);
		}
		startRunners(queue);
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
	List<ClaimedTask> drainUnstarted(String queue) {
		List<ClaimedTask> drained = new ArrayList<>();
		for (ClaimedTask task : List.copyOf(this.unstarted.values())) {
			if ((queue == null || queue.equals(task.queue())) && this.unstarted.remove(task.id()) != null) {
				drained.add(task);
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

	/** Interrupts the handlers still running and stops the threads. */
	void shutdownNow() {
		this.runners.forEach(Runner::interrupt);
		this.timeouts.shutdownNow();
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
			Runner runner = new Runner(queue);
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

	/** The task's outcome is settled: it gives its queue a unit of capacity back. */
	private void settle(QueueState queue) {
		queue.inFlight.decrementAndGet();
		this.inFlight.decrementAndGet();
		if (queue.mayHaveMore) {
			this.wakeUp.signal();
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
	private final class Runner implements Runnable, TaskDispatcher.Steps {

		private final QueueState queue;

		private final AtomicBoolean permitsReleased = new AtomicBoolean();

		private volatile Thread thread;

		// Guarded by this: the task whose handler runs, its timeout, and whether the thread was given up.
		private ClaimedTask current;

		private CommitGroup currentGroup;

		private ScheduledFuture<?> timeout;

		private boolean givenUp;

		Runner(QueueState queue) {
			this.queue = queue;
		}

		@Override
		public void run() {
			this.thread = Thread.currentThread();
			HandlerExecutor.this.runners.add(this);
			try {
				ClaimedTask task;
				while (!isGivenUp() && (task = next()) != null) {
					try {
						if (this.queue.grouped()) {
							HandlerExecutor.this.dispatcher.runGroup(this.queue, task, this);
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
				HandlerExecutor.this.runners.remove(this);
				Thread.interrupted(); // a timeout's interrupt must not reach the next use of this thread
				releasePermits();
				startRunnersEverywhere();
			}
		}

		@Override
		public void runAlone(ClaimedTask task) {
			if (isGivenUp()) {
				// A task of this thread's group after the thread overran a timeout: another thread runs it.
				HandlerExecutor.this.unstarted.put(task.id(), task);
				this.queue.waiting.add(task);
				startRunners(this.queue);
				return;
			}
			begin(task, null);
			long start = System.nanoTime();
			try {
				HandlerExecutor.this.dispatcher.run(task, this.queue.handler, this.queue.settings,
						this.queue.handler.batchedCompletion() ? HandlerExecutor.this.batched : null,
						() -> takeOutcome(task));
			}
			finally {
				if (end(task)) { // else the timeout settled it
					this.queue.handled(System.nanoTime() - start);
					settle(this.queue);
				}
			}
		}

		/** The next waiting task of the queue, skipping those released by shutdown; {@code null} when none is. */
		private ClaimedTask next() {
			ClaimedTask task;
			while ((task = this.queue.waiting.poll()) != null) {
				if (HandlerExecutor.this.unstarted.remove(task.id()) != null) {
					return task;
				}
				settle(this.queue); // released by shutdown before it started
			}
			return null;
		}

		@Override
		public ClaimedTask nextInGroup(int size, long startedNanos) {
			QueueSettings settings = this.queue.settings;
			long elapsed = System.nanoTime() - startedNanos;
			if (size >= settings.groupSize() || isGivenUp()
					|| elapsed + this.queue.typicalHandlerNanos() > settings.groupMaxDelay().toNanos()) {
				return null;
			}
			return next();
		}

		@Override
		public void begin(ClaimedTask task, CommitGroup group) {
			synchronized (this) {
				this.current = task;
				this.currentGroup = group;
				this.timeout = HandlerExecutor.this.timeouts.schedule(() -> timeOut(task),
						this.queue.settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
			}
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
					this.timeout.cancel(false);
					this.current = null;
				}
				return true;
			}
		}

		@Override
		public boolean end(ClaimedTask task) {
			synchronized (this) {
				if (this.timeout != null) {
					this.timeout.cancel(false);
				}
				this.current = null;
				this.currentGroup = null;
				Thread.interrupted(); // a timeout's interrupt that came too late must not reach the next task
				return !this.givenUp;
			}
		}

		@Override
		public void settled(ClaimedTask task) {
			settle(this.queue);
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
				group = this.currentGroup;
				handlerThread = this.thread;
				handlerThread.interrupt();
			}
			try {
				HandlerExecutor.this.dispatcher.timedOut(task, this.queue.settings, handlerThread, group, this);
			}
			finally {
				// The stuck thread keeps running, but no longer in the queue's concurrency: another takes over.
				releasePermits();
				startRunnersEverywhere();
			}
		}

		private synchronized boolean isGivenUp() {
			return this.givenUp;
		}

		void releasePermits() {
			if (this.permitsReleased.compareAndSet(false, true)) {
				this.queue.running.release();
				HandlerExecutor.this.handlerThreads.release();
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
