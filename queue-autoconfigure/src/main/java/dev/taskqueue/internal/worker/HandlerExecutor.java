package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import dev.taskqueue.internal.jdbc.ClaimedTask;
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
final class HandlerExecutor implements HandOffs, HandlerThread.Pool {

	private final WakeUp wakeUp;

	private final List<QueueState> queues;

	private final Executor executor;

	private final Set<HandlerThread> runners = ConcurrentHashMap.newKeySet();

	private final TimeoutWatch timeouts = new TimeoutWatch(this.runners);

	/** Handler threads over all queues, bounded so that handlers never wait for a pooled connection. */
	private final Semaphore handlerThreads;

	private final Map<UUID, ClaimedTask> unstarted = new ConcurrentHashMap<>();

	private final AtomicInteger inFlight = new AtomicInteger();

	private final AtomicInteger nextQueue = new AtomicInteger();

	private final Predicate<QueueState> mayHandOff;

	/** Where completions leave the keys whose next task a claim of this worker hands off. */
	private final Mailbox mailbox;

	/**
	 * @param mayHandOff whether a queue's completions may hand the next task of a key to this worker: only while
	 * it claims for that queue (running, not paused) and the queue has no cluster-wide limit, which a hand-off
	 * would bypass
	 */
	HandlerExecutor(WakeUp wakeUp, List<QueueState> queues,
			int maxHandlers, boolean virtualThreads, Predicate<QueueState> mayHandOff, Mailbox mailbox) {
		this.mayHandOff = mayHandOff;
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
		for (ClaimedTask task : tasks) {
			queue.inFlight.incrementAndGet();
			this.inFlight.incrementAndGet();
			this.unstarted.put(task.id(), task);
			queue.waiting.add(task);
		}
		startRunners(queue);
	}

	/** Whether {@code queue}'s completions may hand off the next task of a key to this worker now. */
	@Override
	public boolean mayHandOff(QueueState queue) {
		return this.mayHandOff.test(queue);
	}

	@Override
	public HandOffs handOffs() {
		return this;
	}

	@Override
	public @Nullable String queueOf(List<ClaimedTask> completed) {
		String name = completed.isEmpty() ? null : completed.get(0).queue();
		for (ClaimedTask task : completed) {
			if (!task.queue().equals(name)) {
				return null;
			}
		}
		QueueState queue = queue(name);
		return (queue != null && mayHandOff(queue)) ? name : null;
	}

	@Override
	public void handedOff(List<ClaimedTask> tasks) {
		if (tasks.isEmpty()) {
			return; // the common case: a completion of a task without an ordering key, after every task
		}
		// Of one queue (see queueOf): submitted together, so that threads start once for all of them.
		tasks.stream().collect(Collectors.groupingBy(ClaimedTask::queue, LinkedHashMap::new, Collectors.toList()))
			.forEach((name, ofQueue) -> submit(
					Objects.requireNonNull(queue(name), "a task is handed off only for a queue of this worker"), ofQueue));
	}

	@Override
	public void leftHeadless(List<ClaimedTask> completed) {
		this.mailbox.post(Outcome.KeyLeftHeadless.of(completed));
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
					state.keyRuns.forget(task.id()); // its key's run is left held
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
	 * {@code task}'s outcome is settled. A task with an ordering key made the next task of its key ready as it ended,
	 * or left it to the next claim (the Mailbox); no NOTIFY tells of either, so its queue may have more to claim.
	 */
	@Override
	public void settle(QueueState queue, ClaimedTask task) {
		if (task.orderingKey() != null) {
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
		// Keys left to a claim wake it whatever the last claim found (the Mailbox): nothing else would.
		if ((queue.mayHaveMore || this.mailbox.anyKeys()) && queue.worthClaiming(inFlight)) {
			this.wakeUp.signal();
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
			if (queue.mayHaveMore || this.mailbox.anyKeys()) {
				this.wakeUp.signal();
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
