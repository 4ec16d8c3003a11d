package dev.taskqueue.internal.worker;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link CompletionMode} asks of the handler thread it runs on ({@link HandlerThread}): the queue's next task
 * for a group, and the bookkeeping of timeouts, run times and settled tasks around each handler.
 */
interface HandlerLane {

	/**
	 * Whether {@code task} may start alone on this thread; {@code false} when the thread overran a timeout and gave
	 * the task back to its queue for another thread.
	 */
	boolean mayStartAlone(ClaimedTask task);

	/**
	 * The queue's next task for a group, or {@code null} when the group is to commit.
	 * @param size how many tasks the group has
	 * @param startedNanos when the group started, by {@link System#nanoTime()}
	 */
	@Nullable ClaimedTask nextInGroup(int size, long startedNanos);

	/** {@code task}'s handler starts, alone ({@code group} is {@code null}) or in {@code group}: its timeout runs. */
	void begin(ClaimedTask task, @Nullable CommitGroup group);

	/**
	 * Takes {@code task}'s outcome, so that its timeout no longer fires; {@code false} when the timeout has taken it
	 * already.
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
