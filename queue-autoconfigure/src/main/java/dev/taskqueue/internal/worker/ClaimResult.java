package dev.taskqueue.internal.worker;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * What a claim that also completed tasks did, see {@link TaskRepository#completeAndClaim}, or what completions did
 * ({@link TaskRepository#completeAll(UUID, List, String)}).
 *
 * @param claimed the tasks it claimed
 * @param completed the ids of the completed tasks it deleted; a completed task missing here had lost its claim
 * @param handedOff the next tasks of the completed tasks' ordering keys, claimed for the session they were handed
 * off to: it must run them, like claimed tasks (they are not counted in {@code claimed}, nor do they move where the
 * queue's next claim starts)
 * @param following for a task handed off, the due tasks of its key that come next, in order, still held: a group
 * commit may run them after it in the same transaction, deleting them with it (see {@code worker/KeyRuns}); they are
 * shown as they will be once claimed by the same session, should one fail
 * @param nextFairnessKey after a fair claim that listed fairness keys, the key the next one starts after
 * ({@code ""} for the first key); {@code null} after any other claim
 * @param fairTenants after a fair claim that took tasks, the tenants with due tasks it found; {@code null} after any
 * other claim
 * @param ahead after a fair claim, the ids of the claimed tasks whose key took fewer of its tasks than the key that
 * took the most: the tenants with little due work, whose tasks run before the tasks claimed ahead of the threads
 * (docs/fairness.md); empty after any other claim
 */
record ClaimResult(List<ClaimedTask> claimed, Set<UUID> completed, List<ClaimedTask> handedOff,
		Map<UUID, List<ClaimedTask>> following, @Nullable String nextFairnessKey, @Nullable FairTenants fairTenants,
		Set<UUID> ahead) {

	public ClaimResult(List<ClaimedTask> claimed, Set<UUID> completed, List<ClaimedTask> handedOff,
			Map<UUID, List<ClaimedTask>> following) {
		this(claimed, completed, handedOff, following, null, null, Set.of());
	}

	public ClaimResult(List<ClaimedTask> claimed, Set<UUID> completed, List<ClaimedTask> handedOff) {
		this(claimed, completed, handedOff, Map.of());
	}

	public ClaimResult(List<ClaimedTask> claimed, Set<UUID> completed) {
		this(claimed, completed, List.of());
	}

	/**
	 * The tenants of a queue with due tasks, as a fair claim or the fairness probe found them (docs/fairness.md).
	 *
	 * @param count the fairness keys with due tasks, plus one when tasks without a key are due among the queue's
	 * first ones; counted as far as the reader needs (a fair claim lists at most as many keys as it claims tasks)
	 * @param soleKey with a count of 1, the key when the tenant is one: the worker then claims in the queue's order
	 */
	public record FairTenants(int count, @Nullable String soleKey) {
	}

}
