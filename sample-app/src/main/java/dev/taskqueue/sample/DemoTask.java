package dev.taskqueue.sample;

/**
 * The payload of a demo task.
 *
 * @param number the task's number within its batch, from 1
 * @param of how many tasks the batch has
 * @param fail whether the handler should fail it for good, to show a dead letter
 */
public record DemoTask(int number, int of, boolean fail) {
}
