package dev.taskqueue.internal.worker;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The worker's completer: writes the fenced completions the completion modes ask for, and owns the hand-off of
 * ordered keys (docs/ordered-keys.md), so that the modes complete a task without knowing keys exist.
 * <p>
 * A completed task with an ordering key frees its key's next task. While this worker claims for the task's queue
 * (running, not paused) and the queue has no cluster-wide limit, which a hand-off would bypass, the completion hands
 * that task to this worker instead of making it a head for any claim: a completion written in the worker's own
 * transaction claims it in the same statement ({@link #completeAll}); one written in a handler's transaction, whose
 * commit must not wait for a claim, deletes the head only and, once committed, leaves the key to the claim loop's next
 * claim of the queue ({@link Outcome.KeyLeftHeadless} in the {@link Mailbox}). {@link #mayHandOff} is that gate, asked
 * as each completion is written, as a pause may have come since the task started.
 */
final class Completer {

	private final TaskRepository tasks;

	/** Completes a task with its transaction's commit in one round trip, when the transactions allow it. */
	private final @Nullable CompletionCommit completionCommit;

	/** Where the keys left headless wait for the claim loop. */
	private final Mailbox mailbox;

	/** The settings of the queues this worker runs, by name; {@code null} for another queue. */
	private final Function<String, @Nullable QueueSettings> queues;

	/** Whether the worker claims for a queue now: it runs, and the queue is not paused. */
	private final Predicate<String> claiming;

	/** Runs tasks of one queue handed to this worker by a completion that committed. */
	private final BiConsumer<String, List<ClaimedTask>> run;

	/**
	 * @param queues the settings of the queues this worker runs, by name
	 * @param claiming whether the worker claims for a queue now
	 * @param run runs tasks of one queue that a completion handed to this worker
	 */
	Completer(TaskRepository tasks, @Nullable CompletionCommit completionCommit, Mailbox mailbox,
			Function<String, @Nullable QueueSettings> queues, Predicate<String> claiming,
			BiConsumer<String, List<ClaimedTask>> run) {
		this.tasks = tasks;
		this.completionCommit = completionCommit;
		this.mailbox = mailbox;
		this.queues = queues;
		this.claiming = claiming;
		this.run = run;
	}

	/**
	 * The completer of tasks run outside a worker, which no completion can hand a task to: each completion makes
	 * the next task of its key a head for any claim.
	 */
	static Completer outsideWorker(TaskRepository tasks, @Nullable CompletionCommit completionCommit,
			Mailbox mailbox) {
		return new Completer(tasks, completionCommit, mailbox, (queue) -> null, (queue) -> false, (queue, given) -> {
			throw new IllegalStateException("Nothing is handed off outside a worker");
		});
	}

	/**
	 * Whether a completion of a task of {@code queue} may hand its key's next task to this worker now: the worker
	 * runs the queue, claims for it, and the queue has no cluster-wide limit.
	 */
	boolean mayHandOff(String queue) {
		QueueSettings settings = this.queues.apply(queue);
		return settings != null && !settings.limits().any() && this.claiming.test(queue);
	}

	/**
	 * Whether completing {@code task} in its handler's transaction may leave something to do once committed (see
	 * {@link #complete}): only a task with an ordering key does, its key's hand-off.
	 */
	static boolean mayLeaveWork(ClaimedTask task) {
		return task.orderingKey() != null;
	}

	/**
	 * Whether settling {@code task} may have made another task of its queue ready with no NOTIFY to say so: the
	 * completion or the dead letter of a task with an ordering key gives its key a new head, or leaves it to a claim.
	 */
	static boolean readiesOthers(ClaimedTask task) {
		return task.orderingKey() != null;
	}

	/**
	 * Completes {@code task} in its handler's transaction {@code status}: with the commit in one round trip when the
	 * transaction is one of its own whose synchronizations this commit runs ({@link CompletionCommit}), registered
	 * now, after the handler's own callbacks, to run after them; else with a fenced delete now. What the completion
	 * leaves to do once it has committed goes to {@code afterwards}, for the caller to run after it has told the
	 * task's outcome (and, as an attempt that rolls back leaves nothing, to forget when it runs the task again).
	 * @return {@code false} when the claim was lost (the delete now): the transaction must roll back. A claim found
	 * lost at commit throws {@link ClaimLostAtCommit} from the commit.
	 */
	boolean complete(ClaimedTask task, TransactionStatus status, Consumer<Runnable> afterwards) {
		CompletionCommit completion = (status.isNewTransaction() && !status.hasSavepoint()
				&& status instanceof DefaultTransactionStatus transaction && transaction.isNewSynchronization())
						? this.completionCommit : null;
		if (completion == null) {
			return this.tasks.complete(task);
		}
		TransactionSynchronizationManager.registerSynchronization(new AtCommit(completion, task, afterwards));
		return true;
	}

	/**
	 * Keeps {@code json}, the result of {@code task}'s handler, in the current transaction, which goes on to complete
	 * the task: the result commits with the completion or not at all. Only for a handler that gave a result, so a
	 * completion without one runs the same statements as before results existed.
	 * @return {@code false} when the claim was lost: the transaction must roll back
	 */
	boolean keepResult(ClaimedTask task, String json) {
		return this.tasks.keepResult(task, json);
	}

	/**
	 * Deletes the completed {@code tasks} of one queue, all claimed by {@code session}, with one statement in the
	 * current transaction of the worker's own, fenced like one by one; it also claims for {@code session} the next
	 * tasks of their keys when it may hand them off: the caller gives those to {@link #run} once committed.
	 * @return the ids of the tasks deleted (those missing had lost their claim), and the tasks handed off
	 */
	ClaimResult completeAll(UUID session, List<ClaimedTask> tasks) {
		return this.tasks.completeAll(session, tasks, oneQueueThatMayHandOff(tasks));
	}

	private @Nullable String oneQueueThatMayHandOff(List<ClaimedTask> completed) {
		String name = completed.isEmpty() ? null : completed.get(0).queue();
		for (ClaimedTask task : completed) {
			if (!task.queue().equals(name)) {
				return null;
			}
		}
		return (name != null && mayHandOff(name)) ? name : null;
	}

	/**
	 * Deletes the completed {@code tasks} of a group, all claimed by {@code session}, with one statement in the group's
	 * transaction. When {@code handOff}, the next tasks of their keys stay held, and those of {@code tasks} with a key
	 * go to {@code leftHeadless}, for {@link #leftHeadless} once the group has committed.
	 * @return the ids of the tasks deleted; those missing had lost their claim
	 */
	Set<UUID> completeGroup(UUID session, List<ClaimedTask> tasks, boolean handOff,
			List<ClaimedTask> leftHeadless) {
		if (!handOff) {
			return this.tasks.completeAll(session, tasks, null).completed();
		}
		Set<UUID> deleted = this.tasks.completeAllLeavingHeads(session, tasks);
		tasks.stream().filter((task) -> task.orderingKey() != null).forEach(leftHeadless::add);
		return deleted;
	}

	/** Runs {@code tasks}, handed to this worker by completions that have committed. */
	void run(List<ClaimedTask> tasks) {
		if (tasks.isEmpty()) {
			return; // the common case: a completion of a task without an ordering key, after every task
		}
		// Of one queue (see completeAll): submitted together, so that threads start once for all of them.
		tasks.stream()
			.collect(Collectors.groupingBy(ClaimedTask::queue, LinkedHashMap::new, Collectors.toList()))
			.forEach(this.run);
	}

	/**
	 * The completions of {@code completed}, all of one queue, deleted them and committed, leaving the next tasks of
	 * their keys held: the claim loop's next claim of the queue hands them off.
	 */
	void leftHeadless(List<ClaimedTask> completed) {
		this.mailbox.post(keysOf(completed));
	}

	/** The keys of {@code heads}, deleted by one completion and all of one queue. */
	static List<Outcome.KeyLeftHeadless> keysOf(List<ClaimedTask> heads) {
		return heads.stream()
			.map((head) -> new Outcome.KeyLeftHeadless(head.queue(), Objects.requireNonNull(head.orderingKey())))
			.toList();
	}

	/**
	 * Completes a task as its handler's transaction commits, after every other before-commit callback, with the
	 * {@code DELETE} and the {@code COMMIT} in one round trip (see {@link CompletionCommit}). A lost claim throws
	 * {@link ClaimLostAtCommit}, which makes Spring roll the transaction back. A task whose key's next task the worker
	 * may take leaves that task held, and its key to the claim loop once the caller has told the outcome.
	 */
	private final class AtCommit implements TransactionSynchronization {

		private final CompletionCommit completion;

		private final ClaimedTask task;

		private final Consumer<Runnable> afterwards;

		AtCommit(CompletionCommit completion, ClaimedTask task, Consumer<Runnable> afterwards) {
			this.completion = completion;
			this.task = task;
			this.afterwards = afterwards;
		}

		@Override
		public int getOrder() {
			return Ordered.LOWEST_PRECEDENCE;
		}

		@Override
		public void beforeCommit(boolean readOnly) {
			// Asked now, as a pause may have come since; only a task with an ordering key has a next task to hand off,
			// and when it may not, the completion makes that task the head for any claim.
			boolean keyed = this.task.orderingKey() != null;
			boolean handOff = keyed && mayHandOff(this.task.queue());
			if (!((keyed && !handOff) ? Completer.this.tasks.completePromotingAndCommit(this.completion, this.task)
					: this.completion.completeAndCommit(this.task))) {
				throw new ClaimLostAtCommit();
			}
			if (handOff) {
				ClaimedTask completed = this.task;
				this.afterwards.accept(() -> leftHeadless(List.of(completed)));
			}
		}

	}

	/** The task's claim was lost before its transaction could commit: the transaction rolls back. */
	static final class ClaimLostAtCommit extends RuntimeException {

		ClaimLostAtCommit() {
			super("The task's claim was lost before its completion", null, false, false);
		}

	}

}
