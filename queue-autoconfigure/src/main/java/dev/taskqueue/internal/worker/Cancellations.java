package dev.taskqueue.internal.worker;

import java.util.Collection;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The tasks of this worker's session that operators cancelled while they were claimed here, as the cancel's
 * {@code NOTIFY} and each heartbeat's read of {@code taskqueue_cancel_request} tell them. A task newly cancelled has
 * its handler interrupted; the completion modes ask {@link #isCancelled} before they complete a task, and a
 * handler asks through its {@code TaskContext}. The database decides all the same: the cancel deleted the task, so
 * a completion that comes before the word arrives finds its claim gone and rolls back. Empty unless a cancel is under
 * way, and then only {@link #isCancelled}'s emptiness check is on the path of every task.
 */
final class Cancellations {

	private final Set<UUID> requested = ConcurrentHashMap.newKeySet();

	/** Interrupts the handler running a task, if one runs it here. */
	private volatile Consumer<UUID> interrupt = (id) -> {
	};

	void interruptWith(Consumer<UUID> interrupt) {
		this.interrupt = interrupt;
	}

	/** {@code id}, claimed by this session, was cancelled (a {@code NOTIFY}): its handler is interrupted. */
	void requested(UUID id) {
		if (this.requested.add(id)) {
			this.interrupt.accept(id);
		}
	}

	/**
	 * A heartbeat read the requests of this session: those not known yet interrupt their handlers; those of attempts
	 * that have ended since are forgotten.
	 */
	void stillRequested(Collection<UUID> ids) {
		this.requested.retainAll(ids);
		ids.forEach(this::requested);
	}

	/** Whether task {@code id}, claimed by this session, has been cancelled. */
	boolean isCancelled(UUID id) {
		return !this.requested.isEmpty() && this.requested.contains(id);
	}

	/** Marks {@code id} cancelled without interrupting anything: a completion found its claim ended by a cancel. */
	void found(UUID id) {
		this.requested.add(id);
	}

	/**
	 * Ends the attempt of a task found cancelled after its handler returned: thrown where the handler's failure would
	 * be, so that its transaction (or savepoint) rolls back, and recorded as cancelled, not as failed.
	 */
	static final class Cancelled extends RuntimeException {

		Cancelled() {
			super("The task was cancelled while its handler ran", null, false, false);
		}

	}

}
