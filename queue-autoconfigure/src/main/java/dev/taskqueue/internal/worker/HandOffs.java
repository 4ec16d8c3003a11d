package dev.taskqueue.internal.worker;

import java.util.List;

import dev.taskqueue.internal.jdbc.ClaimResult;
import dev.taskqueue.internal.jdbc.ClaimedTask;
import org.jspecify.annotations.Nullable;

/**
 * Where the tasks a completion hands off go (see {@link ClaimResult#handedOff()}): the next task of a completed
 * task's ordering key, claimed by the completion's statement for the completing session, which runs it like a task
 * it claimed. {@link HandlerExecutor} is the worker's.
 */
interface HandOffs {

	/** Hands nothing off: completions only make the next task of a key ready, for any claim. */
	HandOffs NONE = new HandOffs() {

		@Override
		public @Nullable String queueOf(List<ClaimedTask> completed) {
			return null;
		}

		@Override
		public void handedOff(List<ClaimedTask> tasks) {
		}

		@Override
		public void leftHeadless(List<ClaimedTask> completed) {
		}

	};

	/**
	 * The queue whose tasks the completion of {@code completed} may hand off now: theirs when they are all of one
	 * queue that this worker claims for (running, not paused) and that has no cluster-wide limit, which a hand-off
	 * would bypass; otherwise {@code null}.
	 */
	@Nullable String queueOf(List<ClaimedTask> completed);

	/** Runs {@code tasks}, handed off by a completion that has committed. */
	void handedOff(List<ClaimedTask> tasks);

	/**
	 * The completions of {@code completed}, of the queue {@link #queueOf} named, deleted them and committed, leaving
	 * the next tasks of their keys held: the claim loop's next claim of the queue hands them off ({@link HeadlessKeys}).
	 */
	void leftHeadless(List<ClaimedTask> completed);

}
