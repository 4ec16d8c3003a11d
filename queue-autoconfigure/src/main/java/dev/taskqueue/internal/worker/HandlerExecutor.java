package dev.taskqueue.internal.worker;

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
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Runs claimed tasks on handler threads (virtual threads when the application enables them). Claimed tasks wait
 * in their queue; a queue has at most {@code concurrency} threads, and all queues together at most
 * {@code maxHandlers}, each taking the queue's waiting tasks one after the other, alone or in groups that commit
 * together. Every task runs under its queue's timeout: a handler that overruns it is interrupted and its thread
 * given up, and a new thread takes over the queue's waiting tasks; a handler that ignores the interrupt keeps its
 * thread, its pooled connection and so its place under {@code maxHandlers} until it returns.
 */
final class HandlerExecutor implements HandlerThread.Pool {

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
	@Override
	public void startRunnersEverywhere() {
		int first = Math.floorMod(this.nextQueue.getAndIncrement(), this.queues.size());
		for (int i = 0; i < this.queues.size(); i++) {
			startRunners(this.queues.get((first + i) % this.queues.size()));
		}
	}

	/**
	 * {@code task}'s outcome is settled. When that may have made other tasks of its queue ready, which no NOTIFY tells
	 * (see {@link Completer#readiesOthers}), its queue may have more to claim.
	 */
	@Override
	public void settle(QueueState queue, ClaimedTask task) {
		if (Completer.readiesOthers(task)) {
			queue.mayHaveMore = true;
		}
		settle(queue);
	}

	/** The task's outcome is settled: it gives its queue a unit of capacity back. */
	@Override
	public void settle(QueueState queue) {
		int inFlight = queue.inFlight.decrementAndGet();
		this.inFlight.decrementAndGet();
		// Only when a claim is worth it: a wake-up per task would cost the claim loop a thread switch per task.
		// What waits in the mailbox for a claim wakes it whatever the last claim found: nothing else would.
		if ((queue.mayHaveMore || this.mailbox.waitsForClaim()) && queue.worthClaiming(inFlight)) {
			this.wakeUp.run();
		}
	}

	@Override
	public TimeoutWatch timeouts() {
		return this.timeouts;
	}

	@Override
	public void started(HandlerThread thread) {
		this.runners.add(thread);
	}

	@Override
	public void ended(HandlerThread thread) {
		this.runners.remove(thread);
	}

	/** A task of a thread that was given up goes back to its queue, for another thread. */
	@Override
	public void requeue(QueueState queue, ClaimedTask task) {
		this.unstarted.put(task.id(), task);
		queue.waiting.add(task);
		startRunners(queue);
	}

	/**
	 * Takes {@code task} to start it; {@code false} when shutdown or a pause gave it back meanwhile. The claim is
	 * compared whole, so that a leftover of a given-back claim never takes the place of a new claim of the task.
	 */
	@Override
	public boolean takeUnstarted(ClaimedTask task) {
		return this.unstarted.remove(task.id(), task);
	}

	/**
	 * A handler thread gives its place among all queues' threads back. The claim loop may have skipped a queue
	 * with more tasks waiting for want of one: it looks again.
	 */
	@Override
	public void releaseThread() {
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

}
