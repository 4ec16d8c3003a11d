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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.jdbc.ClaimedTask;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Runs claimed tasks on handler threads (virtual threads when the application enables them), each under its
 * queue's timeout. A task holds one unit of its queue's concurrency from its claim until its handler returns or
 * times out; a handler that ignores the timeout's interrupt keeps only its thread.
 */
final class HandlerExecutor {

	private final TaskDispatcher dispatcher;

	private final BatchedCompletions batched;

	private final WakeUp wakeUp;

	private final Executor executor;

	private final ScheduledExecutorService timeouts;

	private final Map<UUID, ClaimedTask> unstarted = new ConcurrentHashMap<>();

	private final Set<HandlerRun> running = ConcurrentHashMap.newKeySet();

	private final AtomicInteger inFlight = new AtomicInteger();

	HandlerExecutor(TaskDispatcher dispatcher, BatchedCompletions batched, WakeUp wakeUp, boolean virtualThreads) {
		this.dispatcher = dispatcher;
		this.batched = batched;
		this.wakeUp = wakeUp;
		this.executor = virtualThreads ? virtualThreadExecutor() : Executors.newCachedThreadPool(Threads.named("tq-handler-", true));
		ScheduledThreadPoolExecutor timeouts = new ScheduledThreadPoolExecutor(1, Threads.named("tq-timeout-", true));
		timeouts.setRemoveOnCancelPolicy(true); // one timeout per task: cancelled ones must not pile up
		this.timeouts = timeouts;
	}

	/** Starts {@code task} on a handler thread. */
	void submit(QueueState queue, ClaimedTask task) {
		HandlerRun run = new HandlerRun(queue, task);
		this.unstarted.put(task.id(), task);
		try {
			this.executor.execute(run);
		}
		catch (RejectedExecutionException ex) {
			run.finish(); // stays in unstarted, released on shutdown
		}
	}

	/** How many tasks hold a unit of concurrency, over all queues. */
	int inFlight() {
		return this.inFlight.get();
	}

	/** Takes the claimed tasks that have not started; they will not start any more. */
	List<ClaimedTask> drainUnstarted() {
		List<ClaimedTask> drained = new ArrayList<>();
		for (UUID id : List.copyOf(this.unstarted.keySet())) {
			ClaimedTask task = this.unstarted.remove(id);
			if (task != null) {
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
		this.running.forEach(HandlerRun::interrupt);
		this.timeouts.shutdownNow();
		if (this.executor instanceof ExecutorService service) {
			service.shutdownNow();
		}
	}

	private static Executor virtualThreadExecutor() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("tq-handler-");
		executor.setVirtualThreads(true);
		return executor;
	}

	/** One claimed task on its way through a handler thread. */
	private final class HandlerRun implements Runnable {

		private final QueueState queue;

		private final ClaimedTask task;

		private final AtomicBoolean finished = new AtomicBoolean();

		private final AtomicBoolean permitReleased = new AtomicBoolean();

		private volatile Thread thread;

		HandlerRun(QueueState queue, ClaimedTask task) {
			this.queue = queue;
			this.task = task;
			queue.inFlight.incrementAndGet();
			HandlerExecutor.this.inFlight.incrementAndGet();
		}

		@Override
		public void run() {
			try {
				this.queue.running.acquire();
			}
			catch (InterruptedException ex) {
				finish(); // shutting down; the claim is released with the session
				return;
			}
			try {
				runWithPermit();
			}
			finally {
				releasePermit();
			}
		}

		private void runWithPermit() {
			if (HandlerExecutor.this.unstarted.remove(this.task.id()) == null) {
				finish(); // released by shutdown before it started
				return;
			}
			this.thread = Thread.currentThread();
			HandlerExecutor.this.running.add(this);
			ScheduledFuture<?> timeout = HandlerExecutor.this.timeouts.schedule(this::timeOut,
					this.queue.settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
			try {
				HandlerExecutor.this.dispatcher.run(this.task, this.queue.handler, this.queue.settings,
						this.queue.handler.batchedCompletion() ? HandlerExecutor.this.batched : null);
			}
			finally {
				timeout.cancel(false);
				HandlerExecutor.this.running.remove(this);
				synchronized (this) {
					finish();
					Thread.interrupted(); // a timeout's interrupt must not reach the next task on this thread
				}
			}
		}

		private void timeOut() {
			Thread handlerThread = this.thread;
			synchronized (this) {
				if (!finish()) {
					return;
				}
				handlerThread.interrupt();
			}
			releasePermit(); // the stuck thread keeps running, but not in the queue's concurrency
			HandlerExecutor.this.dispatcher.timedOut(this.task, this.queue.settings, handlerThread);
		}

		private void releasePermit() {
			if (this.permitReleased.compareAndSet(false, true)) {
				this.queue.running.release();
			}
		}

		void interrupt() {
			Thread handlerThread = this.thread;
			if (handlerThread != null) {
				handlerThread.interrupt();
			}
		}

		/** Gives the queue its unit of concurrency back; {@code true} for the one call that does. */
		boolean finish() {
			if (!this.finished.compareAndSet(false, true)) {
				return false;
			}
			this.queue.inFlight.decrementAndGet();
			HandlerExecutor.this.inFlight.decrementAndGet();
			if (this.queue.mayHaveMore) {
				HandlerExecutor.this.wakeUp.signal();
			}
			return true;
		}

	}

}
