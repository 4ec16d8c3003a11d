package dev.taskqueue;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One page of dead letters, newest first (by the time they failed, then by id).
 *
 * @param tasks the dead tasks on this page, at most the limit asked for
 * @param next the cursor that reads the page after this one, or {@code null} when this page is the last; pass it
 * back unchanged to {@link TaskQueueOperations#deadTasks(String, int, String)}
 */
public record DeadTaskPage(List<DeadTask> tasks, @Nullable String next) {

	/** How many dead tasks a page holds when nobody says otherwise (the actuator endpoint). */
	public static final int DEFAULT_LIMIT = 50;

	/** The most dead tasks one page may hold. */
	public static final int MAX_LIMIT = 500;

	public DeadTaskPage {
		tasks = List.copyOf(tasks);
	}

}
