package dev.taskqueue.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.taskqueue.jdbc.ClaimedTask;
import dev.taskqueue.jdbc.TaskRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.transaction.support.TransactionOperations;

/**
 * The ordering keys whose head a committed completion of this worker deleted, leaving the hand-off of the key's next
 * task to the claim loop: its next claim of the queue makes that task the head and claims it in the same statement
 * (see {@code TaskRepository#handOffAndClaim}). When the loop does not claim for the queue (paused) or has ended,
 * the next tasks are made heads for any claim instead, at once. Should this instance die first, the sweep of every
 * instance's heartbeat gives those keys their head.
 */
final class HeadlessKeys {

	private static final Log logger = LogFactory.getLog(HeadlessKeys.class);

	private final TaskRepository tasks;

	private final TransactionOperations transactions;

	private final Map<String, List<String>> byQueue = new HashMap<>();

	private boolean closed;

	/** How many keys wait, over all queues: read without the lock by the handler threads' wake-ups. */
	private volatile int waiting;

	HeadlessKeys(TaskRepository tasks, TransactionOperations transactions) {
		this.tasks = tasks;
		this.transactions = transactions;
	}

	/** The heads {@code completed}, of one queue, were deleted and their commit is done. */
	void add(List<ClaimedTask> completed) {
		if (completed.isEmpty()) {
			return;
		}
		String queue = completed.get(0).queue();
		List<String> keys = completed.stream().map(ClaimedTask::orderingKey).toList();
		synchronized (this) {
			if (!this.closed) {
				this.byQueue.computeIfAbsent(queue, (name) -> new ArrayList<>()).addAll(keys);
				this.waiting += keys.size();
				return;
			}
		}
		promoteOrWarn(queue, keys);
	}

	/** Whether keys wait for a claim: the claim loop must be woken for them, backlog or not. */
	boolean any() {
		return this.waiting > 0;
	}

	/** Takes up to {@code max} keys of {@code queue}, the oldest first, for a claim to hand their next tasks off. */
	synchronized List<String> take(String queue, int max) {
		List<String> keys = this.byQueue.get(queue);
		if (keys == null || keys.isEmpty() || max <= 0) {
			return List.of();
		}
		List<String> taken = new ArrayList<>(keys.subList(0, Math.min(max, keys.size())));
		keys.subList(0, taken.size()).clear();
		this.waiting -= taken.size();
		return taken;
	}

	/** Gives back {@code keys} that a claim took but could not write, to go first next time. */
	synchronized void putBack(String queue, List<String> keys) {
		if (!keys.isEmpty()) {
			this.byQueue.computeIfAbsent(queue, (name) -> new ArrayList<>()).addAll(0, keys);
			this.waiting += keys.size();
		}
	}

	/** Makes the next tasks of {@code queue}'s keys heads for any claim now: the claim loop does not claim for it. */
	void promoteAll(String queue) {
		List<String> keys = take(queue, Integer.MAX_VALUE);
		if (!keys.isEmpty()) {
			try {
				promote(queue, keys);
			}
			catch (RuntimeException ex) {
				putBack(queue, keys);
				throw ex;
			}
		}
	}

	/** The claim loop has ended: the keys waiting, and those still to come, get their next heads at once. */
	void close() {
		Map<String, List<String>> left;
		synchronized (this) {
			this.closed = true;
			left = new HashMap<>(this.byQueue);
			this.byQueue.clear();
			this.waiting = 0;
		}
		left.forEach(this::promoteOrWarn);
	}

	private void promoteOrWarn(String queue, List<String> keys) {
		if (keys.isEmpty()) {
			return;
		}
		try {
			promote(queue, keys);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not give " + keys.size() + " ordering keys of queue '" + queue + "' their next task; "
					+ "the heartbeat's sweep of any instance will: " + ErrorText.summary(ex));
		}
	}

	private void promote(String queue, List<String> keys) {
		this.transactions.executeWithoutResult((status) -> this.tasks.promoteHeadless(queue, keys));
	}

}
