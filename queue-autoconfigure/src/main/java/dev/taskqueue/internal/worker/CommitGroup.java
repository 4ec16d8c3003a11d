package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import dev.taskqueue.TaskContext;
import org.jspecify.annotations.Nullable;

/**
 * The tasks of one group transaction (see {@link GroupCommit}), as they ran.
 */
final class CommitGroup {

	private final List<Entry> entries = new ArrayList<>();

	final CountDownLatch ended = new CountDownLatch(1);

	/** Set by the handler thread once it knows its group was given up. */
	volatile boolean givenUp;

	/** Whether giving up ended the transaction and released the completed tasks. */
	volatile boolean released;

	/** The database session serving the group's transaction, as {@code SessionEnder#identify} names it. */
	volatile @Nullable Object session;

	/**
	 * The tasks the group runs without holding their claims: they are not in flight, so nothing settles them, and a
	 * rollback leaves them as they were. Read by the thread that gives the group up.
	 */
	final Set<UUID> unclaimed = ConcurrentHashMap.newKeySet();

	/** A task taken by the group's thread that has no entry yet. */
	@Nullable ClaimedTask current;

	/** Whether the group's session holds {@code task}'s claim: not one of the {@link #unclaimed}. */
	boolean claimed(ClaimedTask task) {
		return !this.unclaimed.contains(task.id());
	}

	synchronized void add(Entry entry) {
		this.entries.add(entry);
	}

	synchronized int size() {
		return this.entries.size();
	}

	static List<ClaimedTask> completedTasks(List<Entry> entries) {
		return entries.stream().filter(Entry::succeeded).map(Entry::task).toList();
	}

	synchronized List<Entry> entries() {
		return List.copyOf(this.entries);
	}

	/**
	 * Called by the handler thread of a group that was given up: waits until its backend has been ended (or
	 * could not be), so that the connection, and with it the backend, is not handed to anyone else before.
	 */
	void awaitEnded() {
		this.givenUp = true;
		boolean interrupted = false;
		while (true) {
			try {
				this.ended.await(); // not cut short: the backend must be ended before the connection goes back
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A task of the group: its handler returned, or threw {@code failure}; or it was {@code rejected} before its
	 * handler could run, for the dead letters, {@code failure} saying why.
	 */
	record Entry(ClaimedTask task, TaskContext context, @Nullable Throwable failure, Duration duration,
			boolean rejected) {

		boolean succeeded() {
			return this.failure == null;
		}

		/** Why a rejected task goes to the dead letters. */
		Exception rejection() {
			return (Exception) Objects.requireNonNull(this.failure, "a rejected task has its reason");
		}

	}

}
