package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import dev.taskqueue.internal.jdbc.QueueRepository;
import dev.taskqueue.internal.support.DatabaseFailures;
import dev.taskqueue.internal.support.DatabaseOutage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionOperations;

/**
 * This instance's session: the row other instances watch to know it is alive. A heartbeat also expires the
 * sessions of instances that stopped beating, which makes their tasks ready again. When this session is found
 * expired (the instance was paused for longer than the timeout), it opens a new one: its running handlers then
 * cannot complete their tasks, which other instances now run. Each heartbeat also learns which queues operators
 * have paused, so that pausing costs the claim statement nothing.
 */
class WorkerSession {

	private static final Log logger = LogFactory.getLog(WorkerSession.class);

	private final SessionRepository sessions;

	private final TransactionOperations transactions;

	private final String name;

	private final Duration timeout;

	private volatile UUID id;

	private boolean beatBefore;

	private final QueueRepository queues;

	private volatile Set<String> paused = Set.of();

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private volatile DatabaseOutage outage = new DatabaseOutage();

	private final Supplier<@Nullable Set<String>> handledQueues;

	/** Counts this instance's own pauses and resumes, so that a heartbeat's older reading does not undo one. */
	private long pauseChanges;

	/**
	 * What each heartbeat that judges other sessions repairs after expiring them, in a transaction of its own: what
	 * instances that died (or a transaction that committed late) left half done, as the worker's builder says (the
	 * sweep of ordering keys left without a head, {@link TaskRepository#promoteOrphanedKeys}); how many rows it
	 * repaired. Bounded, so that it costs each heartbeat little.
	 */
	private volatile IntSupplier repair = () -> 0;

	/** Told, with each heartbeat, which of this session's tasks were cancelled while claimed; {@code null}: none. */
	private volatile @Nullable Consumer<Set<UUID>> cancelRequests;

	public WorkerSession(SessionRepository sessions, TransactionOperations transactions, String name,
			Duration timeout) {
		this(sessions, null, transactions, name, timeout);
	}

	/**
	 * @param sessions the session repository
	 * @param queues where paused queues are read with each heartbeat, or {@code null} to pause nothing
	 * @param transactions transactions for the session's own statements
	 * @param name the instance's name, for operators
	 * @param timeout how long the session lives without a heartbeat
	 */
	public WorkerSession(SessionRepository sessions, QueueRepository queues, TransactionOperations transactions,
			String name, Duration timeout) {
		this(sessions, queues, transactions, name, timeout, () -> null);
	}

	/**
	 * A session that records the queues its instance handles, read when it opens and with each heartbeat.
	 * @param handledQueues the queues this instance has handlers for, or {@code null} to record none
	 */
	public WorkerSession(SessionRepository sessions, QueueRepository queues, TransactionOperations transactions,
			String name, Duration timeout, Supplier<@Nullable Set<String>> handledQueues) {
		this.handledQueues = handledQueues;
		this.queues = queues;
		this.sessions = sessions;
		this.transactions = transactions;
		this.name = name;
		this.timeout = timeout;
	}

	/** Says failures to reach the database through {@code outage}, shared by the instance's background loops. */
	public void reportOutagesTo(DatabaseOutage outage) {
		this.outage = outage;
	}

	/** Runs {@code repair} with each heartbeat that judges other sessions, after expiring them. */
	void repairWithEachBeat(IntSupplier repair) {
		this.repair = repair;
	}

	/**
	 * Reads, with each heartbeat, the running tasks of this session that operators cancelled, and tells
	 * {@code requests}: how an instance learns of them where the database has no LISTEN/NOTIFY, or a notification
	 * was missed.
	 */
	void readCancelRequestsFor(Consumer<Set<UUID>> requests) {
		this.cancelRequests = requests;
	}

	/** The current session id; {@code null} before {@link #open()}. */
	public UUID id() {
		return this.id;
	}

	void open() {
		UUID newId = UUID.randomUUID();
		try {
			Set<String> handled = this.handledQueues.get();
			this.transactions.executeWithoutResult((status) -> this.sessions.register(newId, this.name, handled));
		}
		catch (RuntimeException ex) {
			// The worker's first statement, with taskqueue.schema.migrate=false maybe TaskQueue's first at all.
			throw DatabaseFailures.atStartup(ex, "open the worker's session");
		}
		this.id = newId;
		readPausedQueues();
	}

	/** Whether operators have paused {@code queue}, as of the last heartbeat or this instance's own pause. */
	public boolean isPaused(String queue) {
		return this.paused.contains(queue);
	}

	/** Takes a pause or resume made through this instance into account now, not at the next heartbeat. */
	synchronized void pausedHere(String queue, boolean paused) {
		this.pauseChanges++;
		Set<String> changed = new HashSet<>(this.paused);
		if (paused ? changed.add(queue) : changed.remove(queue)) {
			this.paused = Set.copyOf(changed);
		}
	}

	/**
	 * Proves this session alive and expires silent ones.
	 * @return how many tasks of expired sessions were made ready again
	 */
	int beat() {
		long tried = System.nanoTime();
		try {
			Set<String> handled = this.handledQueues.get();
			Boolean alive = this.transactions.execute((status) -> this.sessions.heartbeat(this.id, handled));
			this.outage.succeeded(tried);
			if (!Boolean.TRUE.equals(alive)) {
				UUID lost = this.id;
				open();
				logger.warn("TaskQueue session " + lost + " was expired by another instance (no heartbeat for "
						+ this.timeout + "); its tasks were released. Continuing as session " + this.id);
			}
			else {
				readPausedQueues();
				readCancelRequests();
			}
			// After the database was away, every session looks expired: give the others one heartbeat interval
			// to beat again before judging them.
			boolean judge = this.beatBefore;
			this.beatBefore = true;
			Integer released = judge ? this.transactions.execute((status) -> this.sessions.expire(this.timeout)) : null;
			if (judge) {
				repair();
			}
			if (released != null && released > 0) {
				logger.info("Released " + released + " tasks of expired TaskQueue sessions");
				return released;
			}
		}
		catch (RuntimeException ex) {
			this.beatBefore = false;
			if (!this.outage.failed("send the worker's heartbeat", ex)) {
				logger.warn("TaskQueue heartbeat failed: " + ErrorText.summary(ex));
			}
		}
		return 0;
	}

	/** A failure here must not stop the heartbeat: the next one repairs what this one could not. */
	private void repair() {
		try {
			Integer repaired = this.transactions.execute((status) -> this.repair.getAsInt());
			if (repaired != null && repaired > 0) {
				logger.debug("The heartbeat repaired " + repaired + " rows left half done");
			}
		}
		catch (RuntimeException ex) { // e.g. a key whose head an enqueue inserted meanwhile: the next repair sees it
			logger.debug("TaskQueue heartbeat's repair failed: " + ErrorText.summary(ex));
		}
	}

	/** A failure here must not stop the heartbeat: the next one reads the requests again. */
	private void readCancelRequests() {
		Consumer<Set<UUID>> requests = this.cancelRequests;
		if (requests == null) {
			return;
		}
		try {
			Set<UUID> read = this.transactions.execute((status) -> this.sessions.cancelRequests(this.id));
			requests.accept((read != null) ? read : Set.of());
		}
		catch (RuntimeException ex) {
			if (!this.outage.failed("read the cancelled tasks", ex)) {
				logger.warn("Could not read the cancelled TaskQueue tasks: " + ErrorText.summary(ex));
			}
		}
	}

	/** Keeps the last known paused queues when they cannot be read: a failure here must not stop the heartbeat. */
	private void readPausedQueues() {
		if (this.queues == null) {
			return;
		}
		try {
			long changesBefore;
			synchronized (this) {
				changesBefore = this.pauseChanges;
			}
			Set<String> read = this.transactions.execute((status) -> this.queues.paused());
			synchronized (this) {
				// A pause or resume made here while reading may be missing from what was read: keep it until
				// the next heartbeat, which reads it from the database.
				if (this.pauseChanges == changesBefore) {
					this.paused = read;
				}
			}
		}
		catch (RuntimeException ex) {
			if (!this.outage.failed("read the paused queues", ex)) {
				logger.warn("Could not read the paused TaskQueue queues, keeping " + this.paused + ": "
						+ ErrorText.summary(ex));
			}
		}
	}

	void close() {
		try {
			this.transactions.executeWithoutResult((status) -> this.sessions.end(this.id));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not end TaskQueue session " + this.id + "; other instances release its tasks after "
					+ this.timeout + ": " + ErrorText.summary(ex));
		}
	}

}
