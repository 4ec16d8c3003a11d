package dev.taskqueue.internal.worker;

import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * How the tasks of one queue complete, chosen once per queue when the worker starts ({@link QueueState.Spec}):
 * one implementation per mode. {@link TransactionalRun}: the handler and the task's fenced delete in one
 * transaction. {@link GroupCommit}: several tasks in one transaction, each in a savepoint. {@link BatchedRun}: the
 * handler without a transaction of TaskQueue's, the deletes of many tasks written together later. A new way for
 * tasks to complete is a new implementation, chosen in {@link CompletionModes#of}. A mode runs on a handler thread
 * and talks to it through a {@link Lane}.
 */
interface CompletionMode {

	/**
	 * Runs {@code first} (with group commit, also the tasks {@code lane} hands out after it) on the calling handler
	 * thread, records each task's outcome and settles it with {@code lane}. Never throws for a task's failure.
	 */
	void run(ClaimedTask first, Lane lane);

	/**
	 * {@code task}'s handler ran past its queue's timeout, on {@code handlerThread}, which has been interrupted; the
	 * timeout took the task's outcome. {@code group} is the group it ran in, {@code null} when it ran alone.
	 */
	void timedOut(ClaimedTask task, Thread handlerThread, @Nullable CommitGroup group, Lane lane);

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
	static void alone(ClaimedTask task, Lane lane, Body body) {
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

	/**
	 * What a mode asks of the handler thread it runs on ({@link HandlerExecutor.HandlerThread}): the queue's next task
	 * for a group, and the bookkeeping of timeouts, run times and settled tasks around each handler.
	 */
	interface Lane {

		/**
		 * Whether {@code task} may start alone on this thread; {@code false} when the thread overran a timeout and
		 * gave the task back to its queue for another thread.
		 */
		boolean mayStartAlone(ClaimedTask task);

		/**
		 * The queue's next task for a group, or {@code null} when the group is to commit.
		 * @param size how many tasks the group has
		 * @param startedNanos when the group started, by {@link System#nanoTime()}
		 */
		@Nullable ClaimedTask nextInGroup(int size, long startedNanos);

		/**
		 * {@code task}'s handler starts, alone ({@code group} is {@code null}) or in {@code group}: its timeout
		 * runs.
		 */
		void begin(ClaimedTask task, @Nullable CommitGroup group);

		/**
		 * Takes {@code task}'s outcome, so that its timeout no longer fires; {@code false} when the timeout has taken
		 * it already.
		 */
		boolean takeOutcome(ClaimedTask task);

		/** {@code task}'s handler has returned; {@code false} when it ran past its timeout and was given up. */
		boolean end(ClaimedTask task);

		/** A handler ran for {@code nanos}. */
		void handled(long nanos);

		/** {@code task}'s outcome is settled (or will be, by the outcomes recorded later). */
		void settled(ClaimedTask task);

		/** How long a handler of this thread's queue runs, on average: a group stops taking tasks in time. */
		long typicalHandlerNanos();

	}

	/**
	 * Tells the modes that run handlers in a transaction ({@link TransactionalRun}, {@link GroupCommit}) whether the
	 * transaction committed. Spring lets an exception of an after-commit callback out of the commit, although the
	 * transaction, the handler's work and the task's completion with it, did commit: the task must then count as
	 * completed, not failed, and its handler must not run again.
	 */
	final class CommitWatch implements TransactionSynchronization {

		private volatile boolean committed;

		/** Watches the transaction of the calling thread, if it has synchronizations. */
		void watch() {
			if (TransactionSynchronizationManager.isSynchronizationActive()) {
				TransactionSynchronizationManager.registerSynchronization(this);
			}
		}

		@Override
		public void afterCompletion(int status) {
			this.committed = status == STATUS_COMMITTED;
		}

		boolean committed() {
			return this.committed;
		}

	}

}
