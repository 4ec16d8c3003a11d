package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToIntBiFunction;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRedactor;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.QueueRepository;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TaskNotifications;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.PeriodicThread;
import dev.taskqueue.internal.support.TaskQueueListeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs the handlers of this instance. It starts last and stops first: on start it opens a {@link WorkerSession}
 * and a claim loop that takes exactly the free capacity of each queue; on stop it stops claiming, gives back
 * claimed tasks that have not started, waits for running handlers up to the shutdown timeout, writes the last
 * batched completions, then ends the session.
 */
public class TaskWorker implements SmartLifecycle {

	/** Late, so the worker starts after and stops before everything its handlers may use. */
	public static final int PHASE = Integer.MAX_VALUE - 100;

	private static final Log logger = LogFactory.getLog(TaskWorker.class);

	/**
	 * Ordering keys with held tasks that each heartbeat's sweep looks at for a missing head: about a millisecond per
	 * hundred.
	 */
	private static final int ORPHAN_SWEEP = 1000;

	private final TaskHandlerRegistry registry;

	private final TaskRepository tasks;

	private final WorkerSession session;

	private final CompletionModes modes;

	private final TransactionOperations ownTransactions;

	private final Settings settings;

	private final Function<TaskHandlerMethod, QueueSettings> queueSettings;

	private final ClaimLoop.WakeUp wakeUp = new ClaimLoop.WakeUp();

	private final DataSource dataSource;

	private final @Nullable TaskNotifications notifications;

	private NotificationListener notificationListener;

	/** The claims of the listening thread, {@code null} without one. */
	private volatile @Nullable NotifiedKeyClaims notifiedKeyClaims;

	private volatile List<QueueState> queues = List.of();

	private volatile boolean running;

	private Thread claimLoop;

	private HandlerExecutor handlers;

	private Thread completionFlusher;

	private PeriodicThread heartbeat;

	private DatabaseOutage outage = new DatabaseOutage();

	/**
	 * @param notifications where to {@code LISTEN} for enqueues on {@code dataSource}, or {@code null} to poll only
	 */
	TaskWorker(TaskHandlerRegistry registry, TaskRepository tasks, WorkerSession session,
			CompletionModes modes, TransactionOperations ownTransactions,
			Settings settings, Function<TaskHandlerMethod, QueueSettings> queueSettings, DataSource dataSource,
			@Nullable TaskNotifications notifications) {
		this.dataSource = dataSource;
		this.notifications = notifications;
		this.registry = registry;
		this.tasks = tasks;
		this.session = session;
		this.modes = modes;
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

	/**
	 * Says failures to reach the database through {@code outage}, shared by the instance's background loops: the
	 * claim loop, heartbeats, LISTEN, batched completions and outcomes written later. Before {@link #start()}.
	 */
	public void reportOutagesTo(DatabaseOutage outage) {
		this.outage = outage;
		this.session.reportOutagesTo(outage);
		this.modes.reportOutagesTo(outage);
	}

	/** How many tasks this instance claimed on the notifications of their enqueue (docs/fairness.md), for tests. */
	long tasksClaimedOnNotification() {
		NotifiedKeyClaims claims = this.notifiedKeyClaims;
		return (claims != null) ? claims.claimedTasks() : 0;
	}

	/** This instance's session id, {@code null} while the worker has not started. */
	public UUID sessionId() {
		return this.session.id();
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		Collection<TaskHandlerMethod> handlerMethods = this.registry.all();
		if (handlerMethods.isEmpty()) {
			logger.info("TaskQueue worker not started: this application has no @TaskHandler methods");
			return;
		}
		Map<String, QueueSettings> settingsByQueue = new HashMap<>();
		for (TaskHandlerMethod handler : handlerMethods) {
			settingsByQueue.put(handler.queue(), this.queueSettings.apply(handler));
		}
		Map<String, QueueState> byName = new HashMap<>();
		// The completions of this worker's tasks may give it tasks to run, while it claims for their queue.
		Completer completer = this.modes.completer(settingsByQueue::get,
				(queue) -> this.running && !this.session.isPaused(queue),
				(queue, tasks) -> this.handlers.submit(
						Objects.requireNonNull(byName.get(queue), "a completion gives tasks only of this worker's queues"), tasks));
		List<QueueState> states = new ArrayList<>();
		for (TaskHandlerMethod handler : handlerMethods) {
			QueueSettings queueSettings = settingsByQueue.get(handler.queue());
			QueueState.Spec spec = new QueueState.Spec(handler, queueSettings,
					this.modes.of(handler, queueSettings, completer));
			QueueState state = new QueueState(spec, this.settings.maxPrefetch());
			states.add(state);
			byName.put(state.name(), state);
		}
		this.queues = List.copyOf(states);
		this.session.open();
		Mailbox mailbox = this.modes.mailbox();
		mailbox.open();
		this.handlers = new HandlerExecutor(this.wakeUp::signal, states, this.settings.maxHandlers(),
				this.settings.virtualThreads(), mailbox);
		Cancellations cancellations = this.modes.cancellations();
		cancellations.interruptWith(this.handlers::interrupt);
		this.session.readCancelRequestsFor(cancellations::stillRequested);
		if (states.stream().anyMatch((state) -> state.spec.mode().claimsCarryDeletes())) {
			CompletionFlusher flusher = new CompletionFlusher(mailbox, this.ownTransactions, this.modes.outcomes(),
					completer, this.outage,
					Math.max(100, this.settings.completionFlushInterval().toMillis()));
			this.completionFlusher = Threads.named("tq-completions-", false).newThread(flusher);
			this.completionFlusher.start();
		}
		Duration beat = this.settings.heartbeatInterval();
		this.heartbeat = new PeriodicThread("tq-heartbeat", beat, beat, this::beat);
		this.heartbeat.start();
		this.modes.startProgress();
		this.running = true;
		ClaimLoop claims = new ClaimLoop(states, this.tasks, this.session, this.modes.outcomes(), this.ownTransactions,
				this.handlers, this.wakeUp, this.settings.pollInterval(), this::isRunning, this::releaseUnstarted,
				mailbox, this.settings.completionBatchSize(), this.outage);
		this.claimLoop = Threads.named("tq-claim-", false).newThread(claims);
		this.claimLoop.start();
		if (this.notifications != null) {
			Set<String> names = states.stream().map(QueueState::name).collect(Collectors.toSet());
			NotifiedKeyClaims keyClaims = new NotifiedKeyClaims(byName, this.tasks, this.session,
					this.modes.outcomes(), this.ownTransactions, this.handlers, this::isRunning,
					this::releaseUnstarted, this.outage);
			this.notifiedKeyClaims = keyClaims;
			this.notificationListener = new NotificationListener(this.dataSource, this.notifications, names,
					this.wakeUp::signal, keyClaims::claim, (payload) -> {
						UUID cancelled = TaskNotifications.cancelledTask(payload, this.session.id());
						if (cancelled != null) {
							cancellations.requested(cancelled);
						}
					}, this.settings.pollInterval(), this.outage);
			Threads.named("tq-listen-", true).newThread(this.notificationListener).start();
		}
		logStarted(states);
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
		Thread shutdown = Threads.named("tq-shutdown-", false).newThread(() -> {
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

	/**
	 * Applies a pause or resume of {@code queue} that was made through this instance (and committed) at once:
	 * a paused queue claims nothing more, and its claimed tasks that have not started are given back. Other
	 * instances learn of it with their next heartbeat.
	 */
	public void pauseChanged(String queue, boolean paused) {
		this.session.pausedHere(queue, paused);
		this.wakeUp.signal(); // the claim loop gives back what the paused queue holds, or claims for a resumed one
	}

	private void beat() {
		if (this.session.beat() > 0) {
			// Tasks of an expired session are ready again, most likely before where claims had got to.
			this.queues.forEach((queue) -> queue.positions.claimFromStart());
			this.wakeUp.signal();
		}
	}

	/**
	 * Stops claiming, gives back what has not started, lets the running handlers finish and writes the waiting
	 * completions, all within one shutdown timeout; then interrupts what is left and ends the session.
	 */
	private void shutDown() {
		Duration timeout = this.settings.shutdownTimeout();
		long deadline = System.nanoTime() + timeout.toNanos();
		// The last tenth of the timeout (at most a second) is kept for writing the completions of BATCHED handlers.
		long flushReserve = (this.completionFlusher != null) ? Math.min(timeout.toNanos() / 10, 1_000_000_000L) : 0;
		long handlersDeadline = deadline - flushReserve;
		if (this.notificationListener != null) {
			this.notificationListener.stop();
		}
		try {
			if (this.notifiedKeyClaims != null) {
				// A claim of the listening thread under way hands its tasks over before those not started are given back.
				this.notifiedKeyClaims.stop(Duration.ofMillis(remainingMillis(handlersDeadline)));
			}
			this.claimLoop.join(remainingMillis(handlersDeadline));
			releaseUnstarted(null);
			if (!this.handlers.awaitIdle(Duration.ofMillis(remainingMillis(handlersDeadline)))) {
				logger.warn("TaskQueue handlers still running after the shutdown timeout of " + timeout
						+ "; interrupting them. Their tasks are given back, ready at once and (the first "
						+ TaskRepository.FREE_SHUTDOWN_GIVE_BACKS + " times for a task) without counting an attempt; "
						+ "their transactions cannot complete them");
				// Written here, before the session ends: a handler thread's own outcome, written as it notices the
				// interrupt, would race with the end of the session and be lost, and the task would count an attempt.
				this.modes.giveBackAtShutdown(this.handlers.takeRunningForShutdown());
			}
			if (this.completionFlusher != null) {
				this.modes.mailbox().stopDeletes();
				this.completionFlusher.join(remainingMillis(deadline));
				if (this.completionFlusher.isAlive()) {
					logger.warn("TaskQueue could not write every waiting completion within the shutdown timeout of "
							+ timeout + "; those tasks run again once this session has ended");
					this.completionFlusher.interrupt();
					this.completionFlusher.join(100); // a write under way ends before the session does
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.handlers.shutdownNow();
		this.modes.stopProgress(); // deletes the progress of the attempts that ended, before the pool closes
		this.heartbeat.stop(); // after a beat under way, which must not outlive the connection pool
		this.session.close();
		logger.info("TaskQueue worker stopped, session " + this.session.id() + " ended");
	}

	/** What is left until {@code deadline}, at least 1 ms (0 would make {@code join} wait for ever). */
	private static long remainingMillis(long deadline) {
		return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
	}

	/** Gives back the claimed tasks of {@code queue} (of every queue when {@code null}) that have not started. */
	private void releaseUnstarted(@Nullable String queue) {
		List<ClaimedTask> release = this.handlers.drainUnstarted(queue);
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

	private void logStarted(List<QueueState> states) {
		logger.info("TaskQueue worker started as session " + this.session.id() + ": queues "
				+ states.stream().map((state) -> state.spec.describe()).collect(Collectors.joining(", ")) + "; poll-interval "
				+ this.settings.pollInterval() + ", heartbeat-interval " + this.settings.heartbeatInterval()
				+ ", session-timeout " + this.settings.sessionTimeout() + ", shutdown-timeout "
				+ this.settings.shutdownTimeout() + (this.settings.virtualThreads() ? ", virtual threads" : "")
				+ ((this.notifications != null) ? ", LISTEN on '" + this.notifications.channel() + "'"
						: ", polling only")
				+ ((this.settings.maxHandlers() < Integer.MAX_VALUE)
						? ", at most " + this.settings.maxHandlers() + " handlers at once (connection pool)" : ""));
		int wanted = states.stream().mapToInt((state) -> state.spec.settings().concurrency()).sum();
		if (wanted > this.settings.maxHandlers()) {
			logger.warn("The queues' concurrency adds up to " + wanted + " but the connection pool leaves room for "
					+ this.settings.maxHandlers() + " handlers (the worker keeps one connection for its bookkeeping"
					+ ((this.notifications != null) ? " and one for LISTEN" : "") + "): TaskQueue runs at most "
					+ this.settings.maxHandlers() + " at once. Size "
					+ "the pool at least the sum of the queues' concurrency + 2, plus what the rest of the application "
					+ "uses");
		}
	}

	/**
	 * How the worker of this instance runs: plain settings, which autoconfigure makes from the properties.
	 *
	 * @param pollInterval the wait before looking for ready tasks again after finding none
	 * @param heartbeatInterval how often the session proves it is alive and expired sessions are looked for
	 * @param sessionTimeout how long a silent session lives before other instances release its tasks
	 * @param shutdownTimeout how long shutdown waits for running handlers
	 * @param maxHandlers how many handlers may run at once over all queues, so that they never wait for a
	 * connection the pool does not have ({@link Integer#MAX_VALUE} when the pool size is unknown)
	 * @param virtualThreads whether handlers run on virtual threads
	 * @param completionBatchSize the most completions of batched handlers written by one statement
	 * @param completionFlushInterval how long a batched completion waits for others before it is written
	 * @param maxPrefetch the most tasks a queue holds claimed beyond those its threads run
	 */
	public record Settings(Duration pollInterval, Duration heartbeatInterval, Duration sessionTimeout,
			Duration shutdownTimeout, int maxHandlers, boolean virtualThreads, int completionBatchSize,
			Duration completionFlushInterval, int maxPrefetch) {
	}

	/**
	 * Makes a worker, or a {@link TaskRunner}, from what the application has: the worker builds its own statements,
	 * session and completion modes from these.
	 */
	public static Builder builder(TaskHandlerRegistry registry, DataSource dataSource, TaskTables tables) {
		return new Builder(registry, dataSource, tables);
	}

	/**
	 * The parts of a worker: the settings are required, the rest defaults to PostgreSQL without history, transactions
	 * of the data source, no listener and no limit.
	 */
	public static final class Builder {

		private final TaskHandlerRegistry registry;

		private final DataSource dataSource;

		private final TaskTables tables;

		private DatabaseDialect dialect = DatabaseDialect.of(Database.POSTGRESQL, true);

		private SerializationRetry retry = SerializationRetry.none();

		private boolean history;

		private @Nullable PlatformTransactionManager handlerTransactionManager;

		private @Nullable TransactionOperations ownTransactions;

		private @Nullable Settings settings;

		private @Nullable Function<TaskHandlerMethod, QueueSettings> queueSettings;

		private String sessionName = "application";

		private @Nullable QueueRepository queues;

		private JsonMapper jsonMapper = new JsonMapper();

		private boolean strictPayloads;

		private TaskQueueListener listener = new TaskQueueListeners(List.of());

		private List<TaskHandlerInterceptor> interceptors = List.of();

		private TaskRedactor redactor = TaskRedactor.NONE;

		private @Nullable Duration progressInterval;

		private long maxResultBytes = Long.MAX_VALUE;

		private @Nullable TaskNotifications notifications;

		private DatabaseOutage outage = new DatabaseOutage();

		private Builder(TaskHandlerRegistry registry, DataSource dataSource, TaskTables tables) {
			this.registry = registry;
			this.dataSource = dataSource;
			this.tables = tables;
		}

		/**
		 * The database: what it can do, how transactions of the worker's own run again after a serialization
		 * failure, and whether completions keep the task in the history.
		 */
		public Builder database(DatabaseDialect dialect, SerializationRetry retry, boolean history) {
			this.dialect = dialect;
			this.retry = retry;
			this.history = history;
			return this;
		}

		/**
		 * @param handlerTransactionManager the application's transaction manager, for the handlers
		 * @param ownTransactions transactions for the worker's own statements: claims, outcomes, the session
		 */
		public Builder transactions(PlatformTransactionManager handlerTransactionManager,
				TransactionOperations ownTransactions) {
			this.handlerTransactionManager = handlerTransactionManager;
			this.ownTransactions = ownTransactions;
			return this;
		}

		/** The worker's settings. */
		public Builder settings(Settings settings) {
			this.settings = settings;
			return this;
		}

		/** The settings of each handler's queue. */
		public Builder queueSettings(Function<TaskHandlerMethod, QueueSettings> queueSettings) {
			this.queueSettings = queueSettings;
			return this;
		}

		/**
		 * @param name the instance's name, for operators
		 * @param queues where the session reads the paused queues with each heartbeat
		 */
		public Builder session(String name, QueueRepository queues) {
			this.sessionName = name;
			this.queues = queues;
			return this;
		}

		/** Reads payloads with {@code mapper}; {@code strict}: fails a payload with properties its type lacks. */
		public Builder payloads(JsonMapper mapper, boolean strict) {
			this.jsonMapper = mapper;
			this.strictPayloads = strict;
			return this;
		}

		/** The application's listeners and interceptors, which hear about and wrap each handler call. */
		public Builder handlerCalls(TaskQueueListener listener, List<TaskHandlerInterceptor> interceptors) {
			this.listener = listener;
			this.interceptors = List.copyOf(interceptors);
			return this;
		}

		/** Passes the errors logged for failed tasks through {@code redactor}. */
		public Builder redactor(TaskRedactor redactor) {
			this.redactor = redactor;
			return this;
		}

		/** Writes the progress handlers report, the latest of each task at most once per {@code interval}. */
		public Builder progress(Duration interval) {
			this.progressInterval = interval;
			return this;
		}

		/** Fails the attempts whose result's JSON is longer than {@code maxBytes} in UTF-8. */
		public Builder maxResultBytes(long maxBytes) {
			this.maxResultBytes = maxBytes;
			return this;
		}

		/** Where to {@code LISTEN} for enqueues, or {@code null} to poll only. */
		public Builder notifications(@Nullable TaskNotifications notifications) {
			this.notifications = notifications;
			return this;
		}

		/** Where the worker's background loops say that the database is out, shared with the instance's others. */
		public Builder outages(DatabaseOutage outage) {
			this.outage = outage;
			return this;
		}

		/** The worker. */
		public TaskWorker build() {
			Settings settings = Objects.requireNonNull(this.settings, "the worker needs its settings");
			PlatformTransactionManager manager = handlerTransactionManager();
			TransactionOperations own = ownTransactions();
			TaskRepository tasks = tasks();
			WorkerSession session = new WorkerSession(new SessionRepository(this.dataSource, this.tables),
					Objects.requireNonNull(this.queues, "the session needs the queues"),
					this.retry.transactions("session", own), this.sessionName, settings.sessionTimeout(),
					() -> this.registry.all().stream().map(TaskHandlerMethod::queue).collect(Collectors.toSet()));
			session.repairWithEachBeat(() -> tasks.promoteOrphanedKeys(ORPHAN_SWEEP));
			CompletionModes modes = new CompletionModes(tasks, payloads(), new TransactionTemplate(manager),
					this.retry.transactions("outcome", own), this.listener, this.interceptors,
					completionCommit(manager), this.retry, settings.completionBatchSize(),
					settings.completionFlushInterval());
			modes.redactLogsWith(this.redactor);
			if (this.progressInterval != null) {
				modes.writeProgressWith(new ProgressRepository(this.dataSource, this.tables), this.progressInterval);
			}
			modes.limitResults(this.maxResultBytes);
			TaskWorker worker = new TaskWorker(this.registry, tasks, session, modes,
					this.retry.transactions("claim", own), settings, queueSettings(), this.dataSource,
					this.notifications);
			worker.reportOutagesTo(this.outage);
			return worker;
		}

		/** Runs tasks on the caller's thread, for the {@code TaskQueueTester} of queue-test. */
		public TaskRunner runner() {
			return new TaskRunner(this.registry, tasks(), new SessionRepository(this.dataSource, this.tables),
					handlerTransactionManager(), ownTransactions(), payloads(), this.listener, this.interceptors,
					queueSettings())
				.limitingResults(this.maxResultBytes);
		}

		/**
		 * How many tasks of a queue with limits count against its rate limit now, for the queue statistics: read as
		 * the worker's limited claims read it, claiming nothing.
		 */
		public ToIntBiFunction<String, QueueLimits> rateWindowStarts() {
			return tasks().limitedClaims()::startsInWindow;
		}

		private TaskRepository tasks() {
			return new TaskRepository(this.dataSource, this.tables, this.history, this.dialect, this.retry);
		}

		private Function<TaskHandlerMethod, QueueSettings> queueSettings() {
			return Objects.requireNonNull(this.queueSettings, "the worker needs the settings of the queues");
		}

		private TaskInvoker.PayloadReader payloads() {
			return new TaskInvoker.PayloadReader(this.jsonMapper, this.strictPayloads);
		}

		private PlatformTransactionManager handlerTransactionManager() {
			return (this.handlerTransactionManager != null) ? this.handlerTransactionManager
					: new DataSourceTransactionManager(this.dataSource);
		}

		private TransactionOperations ownTransactions() {
			return (this.ownTransactions != null) ? this.ownTransactions
					: new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		}

		/**
		 * Completes tasks with their handler transaction's commit in one round trip, when the handlers'
		 * transactions are JDBC transactions on TaskQueue's own data source; {@code null} otherwise (JPA, JTA,
		 * another database).
		 */
		private Completer.@Nullable CompletionCommit completionCommit(PlatformTransactionManager manager) {
			return (manager instanceof DataSourceTransactionManager jdbc && jdbc.getDataSource() == this.dataSource)
					? new Completer.CompletionCommit(this.dataSource, this.tables, this.history) : null;
		}

	}

}
