package dev.taskqueue.internal.worker;

import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * Runs of a key in group commit (docs/ordered-keys.md, "Runs of a key"). A task of an ordering key handed off to this
 * worker comes with the due tasks of its key that follow it, read by the same claim and left held
 * ({@link ClaimResult#following()}). The group that runs the handed-off task runs them right after it, one after the
 * other in its transaction, while the one before succeeded, the group has room and the worker may take the queue's
 * tasks; it deletes them with their head. No one else can take them meanwhile: their key's head is the group's until
 * the group commits. So most tasks of a busy key cost a delete, and no claim or hand-off of their own.
 * <p>
 * A task of the run that fails is claimed for the group's session in its transaction, after the head's delete, so
 * that its failure is recorded like a claimed task's (its attempt counted, the key held while it waits to retry). A
 * group that rolls back leaves its run's tasks held, as they were: they run again after their head.
 */
final class KeyRuns {

	/** A held task's {@code claimed_by} (the nil UUID), which fences the delete of a task of a run. */
	private static final UUID HELD = new UUID(0, 0);

	/** For a task handed off, the due tasks of its key that follow it, for its group to run after it. */
	private final Map<UUID, List<ClaimedTask>> following = new ConcurrentHashMap<>();

	/** Tasks that ran past their timeout in a key's run: they run again only claimed, where attempts count. */
	private final Set<UUID> timedOutInRuns = ConcurrentHashMap.newKeySet();

	/** A claim read the tasks that follow each handed-off task of {@code following}: they run after it. */
	void follow(Map<UUID, List<ClaimedTask>> following) {
		this.following.putAll(following);
	}

	/** {@code task} was given back before it started: its key's run is left held. */
	void forget(UUID task) {
		this.following.remove(task);
	}

	/**
	 * {@code task} starts in {@code group}: a task handed off starts its key's {@code run}, any other task ends it.
	 * A task of a run, not claimed, is one of the group's {@link CommitGroup#unclaimed}.
	 */
	void taken(CommitGroup group, Deque<ClaimedTask> run, ClaimedTask task) {
		if (group.unclaimed.contains(task.id())) {
			return;
		}
		run.clear();
		if (task.orderingKey() == null) {
			return; // neither handed off nor given up in a run: nothing to look up
		}
		this.timedOutInRuns.remove(task.id()); // claimed now: its attempts count
		List<ClaimedTask> following = this.following.remove(task.id());
		if (following != null) {
			run.addAll(following);
		}
	}

	/**
	 * The next task of {@code group}'s {@code run}, when the group has room for it and the worker may take the queue's
	 * tasks now; else {@code null}, and the run ends. (The group clears the run when its last task failed.)
	 * @param typicalHandlerNanos how long the queue's handlers run, on average
	 * @param mayHandOff whether the worker may take the queue's tasks now (it claims for the queue)
	 */
	@Nullable ClaimedTask next(CommitGroup group, Deque<ClaimedTask> run, QueueSettings settings, long startedNanos,
			long typicalHandlerNanos, boolean mayHandOff) {
		if (run.isEmpty()) {
			return null;
		}
		long elapsed = System.nanoTime() - startedNanos;
		if (group.size() >= settings.groupSize()
				|| elapsed + typicalHandlerNanos > settings.groupMaxDelay().toNanos()
				|| this.timedOutInRuns.contains(run.peek().id()) || !mayHandOff) {
			run.clear();
			return null;
		}
		ClaimedTask next = run.poll();
		group.unclaimed.add(next.id());
		return next;
	}

	/**
	 * Deletes the tasks of {@code group}'s runs that completed, fenced as still held, and claims those that failed
	 * for the session of their run, in the group's transaction, after the heads' deletes; the ids of tasks that were
	 * no longer held go to {@code lost}.
	 * @return the keys whose run ended in a failure: they have a head again, the task that failed
	 */
	static Set<String> settle(TaskRepository tasks, CommitGroup group, Set<UUID> lost) {
		List<ClaimedTask> completed = new ArrayList<>();
		Map<UUID, List<UUID>> failed = new HashMap<>();
		Set<String> failedKeys = new HashSet<>();
		for (CommitGroup.Entry entry : group.entries()) {
			ClaimedTask task = entry.task();
			if (group.claimed(task)) {
				continue;
			}
			if (entry.succeeded()) {
				completed.add(new ClaimedTask(task.id(), task.queue(), task.payload(), task.priority(),
						task.attempt() - 1, task.enqueuedAt(), task.runAt(), task.claimedAt(), HELD, task.lastError(),
						task.headers(), task.orderingKey(), task.bucket()));
			}
			else {
				failed.computeIfAbsent(task.claimedBy(), (session) -> new ArrayList<>()).add(task.id());
				failedKeys.add(task.orderingKey());
			}
		}
		if (!completed.isEmpty()) {
			Set<UUID> deleted = tasks.completeAllLeavingHeads(HELD, completed);
			completed.stream().map(ClaimedTask::id).filter((id) -> !deleted.contains(id)).forEach(lost::add);
		}
		failed.forEach((session, ids) -> {
			if (tasks.claimHeld(session, ids) != ids.size()) {
				lost.addAll(ids);
			}
		});
		return failedKeys;
	}

	/**
	 * {@code task} ran past its timeout in its key's run in {@code group}, which is given up: it was never claimed,
	 * so its attempt cannot be counted, and it is held again. Here it runs again only claimed (handed off after its
	 * head), where a timeout counts, so that a task that always hangs ends in the dead letters.
	 */
	void timedOut(CommitGroup group, ClaimedTask task) {
		if (!group.claimed(task)) {
			this.timedOutInRuns.add(task.id());
		}
	}

}
