package dev.taskqueue;

import java.util.UUID;

/**
 * What an {@link TaskQueue#offer(TaskRequest) offer} did.
 *
 * @param id the id of the task the request ended up as: the new task's, or, for a duplicate, that of the task that
 * already had the request's unique key
 * @param duplicate whether a task with the request's unique key was already there, so nothing was added (with
 * {@link UniqueMode#REPLACE} it may have been given the request's payload); always {@code false} without a key
 */
public record EnqueueResult(UUID id, boolean duplicate) {

}
