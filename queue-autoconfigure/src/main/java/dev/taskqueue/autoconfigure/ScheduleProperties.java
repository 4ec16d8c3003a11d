package dev.taskqueue.autoconfigure;

import java.time.Duration;

import dev.taskqueue.RecurringTask;
import org.jspecify.annotations.Nullable;

/**
 * One recurring schedule declared in configuration, {@code taskqueue.schedules.<name>}, for a queue with a
 * {@code @TaskHandler}. Exactly one of cron, fixed-rate and fixed-delay.
 */
public class ScheduleProperties {

	/**
	 * Cron expression in Spring's syntax (six fields, seconds first, or a macro such as @daily).
	 */
	private @Nullable String cron;

	/**
	 * Time zone of the cron expression, such as Europe/Paris; UTC when not set.
	 */
	private @Nullable String zone;

	/**
	 * Time from one tick to the next.
	 */
	private @Nullable Duration fixedRate;

	/**
	 * Time from the end of one tick's task (completed or dead) to the next tick.
	 */
	private @Nullable Duration fixedDelay;

	/**
	 * Queue each tick enqueues a task on; it needs a @TaskHandler.
	 */
	private @Nullable String queue;

	/**
	 * Payload of each tick's task, as JSON text.
	 */
	private String payload = "{}";

	/**
	 * What to do with ticks whose time passed while no instance ran: RUN_ONCE or SKIP.
	 */
	private RecurringTask.Missed missed = RecurringTask.Missed.RUN_ONCE;

	/**
	 * What to do with a tick while the previous tick's task still waits or runs: SKIP or ALLOW.
	 */
	private RecurringTask.Overlap overlap = RecurringTask.Overlap.SKIP;

	public @Nullable String getCron() {
		return this.cron;
	}

	public void setCron(@Nullable String cron) {
		this.cron = cron;
	}

	public @Nullable String getZone() {
		return this.zone;
	}

	public void setZone(@Nullable String zone) {
		this.zone = zone;
	}

	public @Nullable Duration getFixedRate() {
		return this.fixedRate;
	}

	public void setFixedRate(@Nullable Duration fixedRate) {
		this.fixedRate = fixedRate;
	}

	public @Nullable Duration getFixedDelay() {
		return this.fixedDelay;
	}

	public void setFixedDelay(@Nullable Duration fixedDelay) {
		this.fixedDelay = fixedDelay;
	}

	public @Nullable String getQueue() {
		return this.queue;
	}

	public void setQueue(@Nullable String queue) {
		this.queue = queue;
	}

	public String getPayload() {
		return this.payload;
	}

	public void setPayload(String payload) {
		this.payload = payload;
	}

	public RecurringTask.Missed getMissed() {
		return this.missed;
	}

	public void setMissed(RecurringTask.Missed missed) {
		this.missed = missed;
	}

	public RecurringTask.Overlap getOverlap() {
		return this.overlap;
	}

	public void setOverlap(RecurringTask.Overlap overlap) {
		this.overlap = overlap;
	}

}
