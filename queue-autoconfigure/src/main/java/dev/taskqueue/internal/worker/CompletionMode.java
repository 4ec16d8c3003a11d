package dev.taskqueue.internal.worker;

import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

/**
 * How the tasks of one queue complete, chosen once per queue when the worker starts ({@link QueueSpec}): one
 * implementation per mode. {@link TransactionalRun}: the handler and the task's fenced delete in one transaction.
 * {@link GroupCommit}: several tasks in one transaction, each in a savepoint. {@link BatchedRun}: the handler without
 * a transaction of TaskQueue's, the deletes of many tasks written together later. A new way for tasks to complete is
 * a new implementation, chosen in {@link CompletionModes#of}.
 */
interface CompletionMode {

	/**
	 * Runs {@code first} (with group commit, also the tasks {@code lane} hands out after it) on the calling handler
	 * thread, records each task's outcome and settles it with {@code lane}. Never throws for a task's failure.
	 */
	void run(ClaimedTask first, HandlerLane lane);

	/**
	 * {@code task}'s handler ran past its queue's timeout, on {@code handlerThread}, which has been interrupted; the
	 * timeout took the task's outcome. {@code group} is the group it ran in, {@code null} when it ran alone.
	 */
	void timedOut(ClaimedTask task, Thread handlerThread, @Nullable CommitGroup group, HandlerLane lane);

	/** How many tasks one handler thread holds at once: the group size with group commit, else 1. */
	default int tasksPerThread() {
		return 1;
	}

	/**
	 * Whether the claims of the queue carry the deletes of {@code BATCHED} completions waiting in the {@link Mailbox}
	 * (one round trip and one commit for both); else they carry what else waits there for them.
	 */
	default boolean claimsCarryDeletes() {
		return false;
	}

	/** A claim of the queue returned {@code result}; called before its tasks reach the handler threads. */
	default void claimed(ClaimResult result) {
	}

	/** {@code task}, claimed for the queue, was given back before it started (shutdown, pause). */
	default void givenBack(ClaimedTask task) {
	}

	/** For the worker's start-up log line: {@code ", group commit of up to 20 tasks or 10 ms"}, or empty. */
	String describe();

	/**
	 * Runs {@code task} alone on {@code lane}'s thread, under its timeout: {@code body} runs the handler and records the
	 * outcome, given whether it may (the timeout has not taken it). The task is settled unless its timeout settled it.
	 */
	static void alone(ClaimedTask task, HandlerLane lane, Body body) {
		if (!lane.mayStartAlone(task)) {
			return; // the thread overran a timeout: another thread runs the task
		}
		long start = System.nanoTime();
		try {
			lane.begin(task, null);
			body.run(() -> lane.takeOutcome(task));
		}
		finally {
			if (lane.end(task)) { // else the timeout settled it
				lane.handled(System.nanoTime() - start);
				lane.settled(task);
			}
		}
	}

	/** What runs one task alone, see {@link #alone}. */
	@FunctionalInterface
	interface Body {

		/** @param takeOutcome to ask before recording the outcome: {@code false} once the timeout has taken it */
		void run(BooleanSupplier takeOutcome);

	}

}
