package dev.taskqueue.internal.worker;

import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * One claim statement, see {@link TaskRepository#claim(ClaimRequest)}: where it reads, how many tasks it takes, and
 * the outcomes it writes in the same round trip.
 *
 * @param queue the queue to claim from
 * @param session the claiming session; a session that expired claims nothing
 * @param bucket the bucket read first (0 with one bucket)
 * @param reach how far the claim reads beyond {@code bucket}
 * @param after where in {@code bucket} to start: after this task, the last one the bucket's previous claim took;
 * {@code null} for the bucket's head. Only with {@link Reach#BUCKET}
 * @param limit the most tasks to claim; 0 only writes the outcomes
 * @param completed tasks whose completions the statement deletes, each fenced by its own claim; only with
 * {@link Reach#BUCKET} and no {@code headlessKeys}
 * @param headlessKeys keys of {@code queue} whose head a completion of {@code session} deleted and left to this
 * claim: the statement hands their next tasks off to {@code session}; only with {@link Reach#BUCKET}
 * @param following with {@code headlessKeys}, how many of the due tasks that follow each task handed off to read as
 * well, unclaimed (a group commit runs them after it)
 * @param fairAfter for a fair claim (docs/fairness.md), the fairness key it starts after ({@code ""} for the first),
 * which the previous fair claim returned ({@link ClaimResult#nextFairnessKey()}); {@code null} for a claim in the
 * queue's order. Only with {@link Reach#BUCKET}, from the head, without {@code headlessKeys}
 */
record ClaimRequest(String queue, UUID session, int bucket, Reach reach, @Nullable ClaimedTask after, int limit,
		List<ClaimedTask> completed, List<String> headlessKeys, int following, @Nullable String fairAfter) {

	public ClaimRequest {
		completed = List.copyOf(completed);
		headlessKeys = List.copyOf(headlessKeys);
		if (reach != Reach.BUCKET && (after != null || !completed.isEmpty() || !headlessKeys.isEmpty())) {
			throw new IllegalArgumentException("A claim that reads other buckets starts at their heads and writes "
					+ "no outcomes");
		}
		if (!completed.isEmpty() && !headlessKeys.isEmpty()) {
			throw new IllegalArgumentException("A claim either deletes completions or hands keys off, not both");
		}
		if (fairAfter != null && (reach != Reach.BUCKET || after != null || !headlessKeys.isEmpty())) {
			throw new IllegalArgumentException("A fair claim reads its bucket from the head and hands no keys off");
		}
	}

	/** A claim in the queue's order. */
	public ClaimRequest(String queue, UUID session, int bucket, Reach reach, @Nullable ClaimedTask after, int limit,
			List<ClaimedTask> completed, List<String> headlessKeys, int following) {
		this(queue, session, bucket, reach, after, limit, completed, headlessKeys, following, null);
	}

	/** Claims up to {@code limit} ready tasks of {@code queue}, every bucket's, in the queue's order of priority. */
	public static ClaimRequest of(String queue, UUID session, int limit) {
		return new ClaimRequest(queue, session, 0, Reach.BUCKET_THEN_OTHERS, null, limit, List.of(), List.of(), 0);
	}

	/** How far a claim reads beyond its bucket. */
	public enum Reach {

		/** Its bucket only, from its head or from {@code after}: the claim loop's claim, which writes outcomes. */
		BUCKET,

		/** Its bucket, then when that has fewer, the buckets after it and those before it. */
		BUCKET_THEN_OTHERS,

		/** The buckets after it, then those before it, not its own: the rest of a claim whose bucket had fewer. */
		OTHERS

	}

}
