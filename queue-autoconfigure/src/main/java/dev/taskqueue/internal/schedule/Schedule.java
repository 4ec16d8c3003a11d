package dev.taskqueue.internal.schedule;

import java.util.List;

import dev.taskqueue.RecurringTask.Missed;
import dev.taskqueue.RecurringTask.Overlap;

/**
 * A schedule this instance declares, from a {@code @RecurringTask} method or {@code taskqueue.schedules.<name>}.
 *
 * @param name its name, unique in the application
 * @param queue the queue its ticks' tasks go to
 * @param payload the JSON payload of each tick's task
 * @param spec when its ticks are due
 * @param missed what to do with ticks whose time passed while no instance ran
 * @param overlap what to do with a tick while the previous tick's task waits or runs
 * @param source where it was declared, for messages
 */
record Schedule(String name, String queue, String payload, ScheduleSpec spec, Missed missed, Overlap overlap,
		String source) {

	/** The unique key of its tasks while a tick must not overlap the previous one; the name itself. */
	boolean keyed() {
		return this.overlap == Overlap.SKIP;
	}

	/**
	 * Refuses this schedule when one of {@code declared} has its name already.
	 * @throws IllegalArgumentException naming where both were declared
	 */
	void requireNameFreeIn(List<Schedule> declared) {
		for (Schedule other : declared) {
			if (other.name().equals(this.name)) {
				throw new IllegalArgumentException(this.source + " and " + other.source() + " both declare schedule '"
						+ this.name + "'; give one of them another name");
			}
		}
	}

}
