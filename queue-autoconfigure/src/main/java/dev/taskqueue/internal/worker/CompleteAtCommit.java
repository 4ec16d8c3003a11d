package dev.taskqueue.internal.worker;

import java.util.List;
import java.util.function.Consumer;

import dev.taskqueue.internal.jdbc.ClaimedTask;
import dev.taskqueue.internal.jdbc.CompletionCommit;

import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Completes a task as its handler's transaction commits, after every other before-commit callback, with the
 * {@code DELETE} and the {@code COMMIT} in one round trip (see {@link CompletionCommit}). A lost claim throws
 * {@link ClaimLostAtCommit}, which makes Spring roll the transaction back.
 */
final class CompleteAtCommit implements TransactionSynchronization {

	private final CompletionCommit completion;

	private final ClaimedTask task;

	private final HandOffs handOffs;

	private final Consumer<ClaimedTask> leftHeadless;

	private CompleteAtCommit(CompletionCommit completion, ClaimedTask task, HandOffs handOffs,
			Consumer<ClaimedTask> leftHeadless) {
		this.completion = completion;
		this.task = task;
		this.handOffs = handOffs;
		this.leftHeadless = leftHeadless;
	}

	/**
	 * Registers the completion of {@code task} with the current transaction. Call it once the handler has returned,
	 * so that it is registered after the handler's own callbacks, and sorts after them. When {@code handOffs} may
	 * take the next task of its ordering key as the completion is written, the completion leaves it held and gives
	 * {@code task} to {@code leftHeadless}, for {@link HandOffs#leftHeadless} once the transaction has committed.
	 */
	static void register(CompletionCommit completion, ClaimedTask task, HandOffs handOffs,
			Consumer<ClaimedTask> leftHeadless) {
		TransactionSynchronizationManager
			.registerSynchronization(new CompleteAtCommit(completion, task, handOffs, leftHeadless));
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void beforeCommit(boolean readOnly) {
		// Asked now, as a pause may have come since; only a task with an ordering key has a next task to hand off.
		// A completion that may hand off leaves it to the claim loop (HeadlessKeys): its commit writes the delete only.
		boolean handOff = this.task.orderingKey() != null && this.handOffs.queueOf(List.of(this.task)) != null;
		if (!(handOff ? this.completion.completeLeavingHeadAndCommit(this.task)
				: this.completion.completeAndCommit(this.task))) {
			throw new ClaimLostAtCommit();
		}
		if (handOff) {
			this.leftHeadless.accept(this.task);
		}
	}

	/** The task's claim was lost before its transaction could commit: the transaction rolls back. */
	static final class ClaimLostAtCommit extends RuntimeException {

		ClaimLostAtCommit() {
			super("The task's claim was lost before its completion", null, false, false);
		}

	}

}
