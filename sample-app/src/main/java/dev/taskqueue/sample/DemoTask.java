package dev.taskqueue.sample;

/**
 * The payload of a demo task.
 *
 * @param number the task's number within its batch, from 1
 * @param of how many tasks the batch has
 */
public record DemoTask(int number, int of) {
}
