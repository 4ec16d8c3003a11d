package dev.taskqueue.jdbc;

import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * What a claim that also completed tasks did, see {@link TaskRepository#completeAndClaim}.
 *
 * @param claimed the tasks it claimed
 * @param completed the ids of the completed tasks it deleted; a completed task missing here had lost its claim
 */
public record ClaimResult(List<ClaimedTask> claimed, Set<UUID> completed) {

}
