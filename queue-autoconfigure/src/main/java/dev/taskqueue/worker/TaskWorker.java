package dev.taskqueue.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.taskqueue.handler.TaskHandlerMethod;
import dev.taskqueue.handler.TaskHandlerRegistry;
import dev.taskqueue.jdbc.ClaimedTask;
import dev.taskqueue.jdbc.TaskRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.transaction.support.TransactionOperations;

/**
 * Runs the handlers of this instance. It starts last and stops first: on start it opens a {@link WorkerSession}
 * and a claim loop that takes exactly the free capacity of each queue; on stop it stops claiming, gives back
 * claimed tasks that have not started, waits for running handlers up to the shutdown timeout, then ends the
 * session.
 */
public class TaskWorker implements SmartLifecycle {

	/** Late, so the worker starts after and stops before everything its handlers may use. */
	public static final int PHASE = Integer.MAX_VALUE - 100;

	private static final Log logger = LogFactory.getLog(TaskWorker.class);

	/** The order of the claim query, which its RETURNING clause does not keep. */
	private static final Comparator<ClaimedTask> CLAIM_ORDER = Comparator
		.comparingInt(ClaimedTask::priority)
		.reversed()
		.thenComparing(ClaimedTask::runAt)
		.thenComparing(ClaimedTask::id);

	private final TaskHandlerRegistry registry;

	private final TaskRepository tasks;

	private final WorkerSession session;

	private final TaskDispatcher dispatcher;

	private final TransactionOperations ownTransactions;

	private final WorkerSettings settings;

	private final Function<TaskHandlerMethod, QueueSettings> queueSettings;

	private final WakeUp wakeUp = new WakeUp();

	private final Map<UUID, ClaimedTask> unstarted = new ConcurrentHashMap<>();

	private volatile List<QueueState> queues = List.of();

	private final AtomicInteger handlersInFlight = new AtomicInteger();

	private int nextQueue;

	private volatile boolean running;

	private Thread claimLoop;

	private ExecutorService handlerThreads;

	private ScheduledExecutorService heartbeatThread;

	private ScheduledExecutorService timeoutThread;

	public TaskWorker(TaskHandlerRegistry registry, TaskRepository tasks, WorkerSession session,
			TaskDispatcher dispatcher, TransactionOperations ownTransactions, WorkerSettings settings,
			Function<TaskHandlerMethod, QueueSettings> queueSettings) {
		this.registry = registry;
		this.tasks = tasks;
		this.session = session;
		this.dispatcher = dispatcher;
		this.ownTransactions = ownTransactions;
		this.settings = settings;
		this.queueSettings = queueSettings;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		List<QueueState> states = new ArrayList<>();
		for (TaskHandlerMethod handler : this.registry.all()) {
			states.add(new QueueState(handler, this.queueSettings.apply(handler)));
		}
		if (states.isEmpty()) {
			logger.info("TaskQueue worker not started: this application has no @TaskHandler methods");
			return;
		}
		this.queues = List.copyOf(states);
		this.session.open();
		// Not a fixed pool: a handler that ignores its timeout's interrupt keeps its thread, and the queue's
		// concurrency (counted per queue, not per thread) must still be available to other tasks.
		this.handlerThreads = Executors.newCachedThreadPool(named("tq-handler-", true));
		this.heartbeatThread = Executors.newScheduledThreadPool(1, named("tq-heartbeat-"));
		this.timeoutThread = Executors.newScheduledThreadPool(1, named("tq-timeout-"));
		long beat = this.settings.heartbeatInterval().toMillis();
		this.heartbeatThread.scheduleWithFixedDelay(this::beat, beat, beat, TimeUnit.MILLISECONDS);
		this.running = true;
		this.claimLoop = named("tq-claim-").newThread(this::claimUntilStopped);
		this.claimLoop.start();
		logger.info("TaskQueue worker started as session " + this.session.id() + ": queues "
				+ states.stream().map(QueueState::describe).collect(Collectors.joining(", ")) + "; poll-interval "
				+ this.settings.pollInterval() + ", heartbeat-interval " + this.settings.heartbeatInterval()
				+ ", session-timeout " + this.settings.sessionTimeout() + ", shutdown-timeout "
				+ this.settings.shutdownTimeout()
				+ ((this.settings.maxHandlers() < Integer.MAX_VALUE)
						? ", at most " + this.settings.maxHandlers() + " handlers at once (connection pool)" : ""));
		int wanted = states.stream().mapToInt((state) -> state.settings.concurrency()).sum();
		if (wanted > this.settings.maxHandlers()) {
			logger.warn("The queues' concurrency adds up to " + wanted + " but the connection pool leaves room for "
					+ this.settings.maxHandlers() + " handlers (pool size - 2): TaskQueue runs at most "
					+ this.settings.maxHandlers() + " at once. Size the pool at least the sum of the queues' "
					+ "concurrency + 2, plus what the rest of the application uses");
		}
	}

	@Override
	public void stop() {
		CountDownLatch stopped = new CountDownLatch(1);
		stop(stopped::countDown);
		try {
			stopped.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public synchronized void stop(Runnable callback) {
		if (!this.running) {
			callback.run();
			return;
		}
		this.running = false;
		this.wakeUp.signal();
		Thread shutdown = named("tq-shutdown-").newThread(() -> {
			try {
				shutDown();
			}
			finally {
				callback.run();
			}
		});
		shutdown.start();
	}

	/** Wakes the claim loop, for instance when tasks were enqueued or released. */
	public void wakeUp() {
		this.wakeUp.signal();
	}

	private void claimUntilStopped() {
		while (this.running) {
			try {
				this.dispatcher.recordPendingOutcomes();
				// Start with another queue each time, so that with a pool-bound limit no queue starves the others.
				List<QueueState> all = this.queues;
				this.nextQueue = (this.nextQueue + 1) % all.size();
				for (int i = 0; i < all.size(); i++) {
					claim(all.get((this.nextQueue + i) % all.size()));
				}
				this.wakeUp.await(this.settings.pollInterval());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				logger.warn("Could not claim tasks, trying again in " + this.settings.pollInterval() + ": "
						+ ErrorText.summary(ex));
				try {
					WakeUp.sleep(this.settings.pollInterval());
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	private void claim(QueueState queue) {
		int free = Math.min(queue.settings.concurrency() - queue.inFlight.get(),
				this.settings.maxHandlers() - this.handlersInFlight.get());
		if (free <= 0 || !this.running) {
			return;
		}
		UUID sessionId = this.session.id();
		List<ClaimedTask> claimed = this.ownTransactions
			.execute((status) -> this.tasks.claim(queue.handler.queue(), sessionId, free));
		queue.mayHaveMore = claimed.size() == free;
		for (ClaimedTask task : claimed.stream().sorted(CLAIM_ORDER).toList()) {
			HandlerRun run = new HandlerRun(queue, task);
			this.unstarted.put(task.id(), task);
			try {
				this.handlerThreads.execute(run);
			}
			catch (RejectedExecutionException ex) {
				run.finish(); // stays in unstarted, released on shutdown
			}
		}
	}

	private void beat() {
		if (this.session.beat() > 0) {
			this.wakeUp.signal();
		}
	}

	private void shutDown() {
		Duration timeout = this.settings.shutdownTimeout();
		try {
			this.claimLoop.join(timeout.toMillis() + 1);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		releaseUnstarted();
		this.handlerThreads.shutdown();
		boolean finished = false;
		try {
			finished = this.handlerThreads.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (!finished) {
			logger.warn("TaskQueue handlers still running after the shutdown timeout of " + timeout
					+ "; interrupting them. Their tasks are released and their transactions cannot complete them");
			this.handlerThreads.shutdownNow();
		}
		this.heartbeatThread.shutdownNow();
		this.timeoutThread.shutdownNow();
		this.session.close();
		logger.info("TaskQueue worker stopped, session " + this.session.id() + " ended");
	}

	private void releaseUnstarted() {
		List<ClaimedTask> release = new ArrayList<>();
		for (UUID id : List.copyOf(this.unstarted.keySet())) {
			ClaimedTask task = this.unstarted.remove(id);
			if (task != null) {
				release.add(task);
			}
		}
		if (release.isEmpty()) {
			return;
		}
		Map<UUID, List<UUID>> bySession = release.stream()
			.collect(Collectors.groupingBy(ClaimedTask::claimedBy,
					Collectors.mapping(ClaimedTask::id, Collectors.toList())));
		try {
			bySession.forEach((session, ids) -> this.ownTransactions
				.executeWithoutResult((status) -> this.tasks.releaseUnstarted(ids, session)));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release " + release.size() + " claimed tasks that had not started; "
					+ "they become ready when this session ends or expires: " + ErrorText.summary(ex));
		}
	}

	private static ThreadFactory named(String prefix) {
		return named(prefix, false);
	}

	/** Handler threads are daemons: a handler stuck past its timeout must not keep the JVM from exiting. */
	private static ThreadFactory named(String prefix, boolean daemon) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
			thread.setDaemon(daemon);
			return thread;
		};
	}

	/**
	 * One claimed task on its way through a handler thread. It holds one unit of its queue's concurrency until it
	 * finishes or times out, whichever comes first.
	 */
	private final class HandlerRun implements Runnable {

		private final QueueState queue;

		private final ClaimedTask task;

		private final AtomicBoolean finished = new AtomicBoolean();

		HandlerRun(QueueState queue, ClaimedTask task) {
			this.queue = queue;
			this.task = task;
			queue.inFlight.incrementAndGet();
			TaskWorker.this.handlersInFlight.incrementAndGet();
		}

		@Override
		public void run() {
			if (TaskWorker.this.unstarted.remove(this.task.id()) == null) {
				finish(); // released by shutdown before it started
				return;
			}
			Thread thread = Thread.currentThread();
			ScheduledFuture<?> timeout = TaskWorker.this.timeoutThread.schedule(() -> timeOut(thread),
					this.queue.settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
			try {
				TaskWorker.this.dispatcher.run(this.task, this.queue.handler, this.queue.settings);
			}
			finally {
				timeout.cancel(false);
				synchronized (this) {
					finish();
					Thread.interrupted(); // a timeout's interrupt must not reach the next task on this thread
				}
			}
		}

		private void timeOut(Thread thread) {
			synchronized (this) {
				if (!finish()) {
					return;
				}
				thread.interrupt();
			}
			TaskWorker.this.dispatcher.timedOut(this.task, this.queue.settings, thread);
		}

		/** Gives the queue its unit of concurrency back; {@code true} for the one call that does. */
		boolean finish() {
			if (!this.finished.compareAndSet(false, true)) {
				return false;
			}
			this.queue.inFlight.decrementAndGet();
			TaskWorker.this.handlersInFlight.decrementAndGet();
			if (this.queue.mayHaveMore) {
				TaskWorker.this.wakeUp.signal();
			}
			return true;
		}

	}

	private static final class QueueState {

		final TaskHandlerMethod handler;

		final QueueSettings settings;

		final AtomicInteger inFlight = new AtomicInteger();

		volatile boolean mayHaveMore;

		QueueState(TaskHandlerMethod handler, QueueSettings settings) {
			this.handler = handler;
			this.settings = settings;
		}

		String describe() {
			return this.handler.queue() + " (concurrency " + this.settings.concurrency() + ", max-attempts "
					+ this.settings.maxAttempts() + ", timeout " + this.settings.timeout() + ")";
		}

	}

}
