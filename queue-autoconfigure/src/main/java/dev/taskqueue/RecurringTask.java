package dev.taskqueue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a bean method on a schedule, once per tick across every instance of the application: each tick enqueues
 * exactly one task, which runs through the normal path (retries, dead letters, metrics, exactly-once completion).
 * The method takes no parameter or one {@link TaskContext}, whose {@link TaskContext#scheduledAt()} is the tick.
 * <p>
 * Exactly one of {@link #cron()}, {@link #fixedRate()} and {@link #fixedDelay()} must be set. Every attribute may
 * use {@code ${…}} placeholders.
 *
 * <pre>{@code
 * @RecurringTask(cron = "0 0 2 * * *", zone = "Europe/Paris")
 * void purgeExpiredCarts() { ... }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RecurringTask {

	/**
	 * The schedule's name, which identifies it across instances and restarts; by default the bean name and the
	 * method name, {@code "beanName.methodName"}. Tasks run on the queue of this name unless {@link #queue()} says
	 * otherwise.
	 */
	String name() default "";

	/** A cron expression in Spring's syntax ({@code CronExpression}): six fields, seconds first, or a macro. */
	String cron() default "";

	/** The time zone of {@link #cron()}, such as {@code Europe/Paris}; UTC by default. */
	String zone() default "";

	/** The time from one tick to the next, as a {@code Duration} ({@code PT1M}, {@code 1m}, {@code 500ms}). */
	String fixedRate() default "";

	/**
	 * The time from the end of one tick's task (completed or dead) to the next tick, as a {@code Duration}.
	 */
	String fixedDelay() default "";

	/** The queue the ticks' tasks run on; the schedule's {@link #name()} by default. */
	String queue() default "";

	/** What to do with ticks whose time passed while no instance ran. */
	Missed missed() default Missed.RUN_ONCE;

	/** What to do with a tick while the task of the previous tick still waits or runs. */
	Overlap overlap() default Overlap.SKIP;

	/** Ticks missed while no instance of the application ran. */
	enum Missed {

		/** Run one task at once for all of them, then follow the schedule. */
		RUN_ONCE,

		/** Run none of them; follow the schedule from now. */
		SKIP

	}

	/** A tick due while the previous tick's task still waits, runs or waits to retry. */
	enum Overlap {

		/** Do not start it; count it as skipped. */
		SKIP,

		/** Start it anyway: the tasks of both ticks may run at once. */
		ALLOW

	}

}
