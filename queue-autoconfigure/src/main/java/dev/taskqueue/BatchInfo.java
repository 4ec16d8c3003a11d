package dev.taskqueue;

import java.util.UUID;

/**
 * The batch a {@code then} task follows (see {@link TaskQueue#enqueueBatch}), as {@link TaskContext#batch()} gives
 * it to the task's handler: every task of the batch had completed or gone to the dead letters when it was enqueued.
 *
 * @param id the batch's id
 * @param total how many tasks the batch had
 * @param completed how many of them completed: {@code total - dead}
 * @param dead how many of them were in the dead letters
 */
public record BatchInfo(UUID id, int total, int completed, int dead) {
}
