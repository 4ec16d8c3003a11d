package dev.taskqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;

import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * When a schedule's ticks are due: a pure function of the last tick and the database's "now", so that it can be
 * tested on a fixed clock. Exactly one of a cron expression (in a zone), a fixed rate or a fixed delay.
 */
final class ScheduleSpec {

	private final @Nullable CronExpression cron;

	private final ZoneId zone;

	private final @Nullable Duration fixedRate;

	private final @Nullable Duration fixedDelay;

	private final String text;

	private ScheduleSpec(@Nullable CronExpression cron, ZoneId zone, @Nullable Duration fixedRate,
			@Nullable Duration fixedDelay, String text) {
		this.cron = cron;
		this.zone = zone;
		this.fixedRate = fixedRate;
		this.fixedDelay = fixedDelay;
		this.text = text;
	}

	/**
	 * @throws IllegalArgumentException if the expression is not one {@link CronExpression} reads, or never fires
	 */
	public static ScheduleSpec cron(String expression, ZoneId zone) {
		CronExpression cron = CronExpression.parse(expression);
		if (cron.next(ZonedDateTime.now(zone)) == null) {
			throw new IllegalArgumentException("cron expression '" + expression + "' never fires");
		}
		return new ScheduleSpec(cron, zone, null, null, "cron " + expression + " " + zone.getId());
	}

	public static ScheduleSpec fixedRate(Duration rate) {
		return new ScheduleSpec(null, ZoneId.of("UTC"), requirePositive(rate, "fixed rate"), null,
				"fixed-rate " + rate);
	}

	public static ScheduleSpec fixedDelay(Duration delay) {
		return new ScheduleSpec(null, ZoneId.of("UTC"), null, requirePositive(delay, "fixed delay"),
				"fixed-delay " + delay);
	}

	private static Duration requirePositive(Duration duration, String what) {
		if (duration.isNegative() || duration.isZero() || duration.toNanos() < 1000) {
			throw new IllegalArgumentException(what + " must be at least 1 microsecond but was " + duration);
		}
		return duration;
	}

	/** Whether the next tick waits for the last tick's task to finish. */
	public boolean isFixedDelay() {
		return this.fixedDelay != null;
	}

	/** The delay after the last tick's task finished, for a {@link #isFixedDelay() fixed-delay} schedule. */
	public Duration delay() {
		if (this.fixedDelay == null) {
			throw new IllegalStateException(this.text + " has no fixed delay");
		}
		return this.fixedDelay;
	}

	/** When the first tick of a schedule declared at {@code now} is due: at once, except for a cron. */
	public Instant first(Instant now) {
		return (this.cron != null) ? after(this.cron, now) : now;
	}

	/**
	 * When the tick after the one due at {@code due} is due, however late that one ran: a tick a little late (a
	 * pause of the JVM, a slow database) is followed by the ticks it held up, one by one. {@code null} for a fixed
	 * delay, whose next tick waits for the task.
	 */
	public @Nullable Instant next(Instant due) {
		if (this.cron != null) {
			return after(this.cron, due);
		}
		return (this.fixedRate != null) ? due.plus(this.fixedRate) : null;
	}

	/**
	 * When the first tick after {@code now} is due, the last one having been due at {@code due}: after ticks missed
	 * while no instance ran, so that they are not run one by one. A fixed rate keeps its phase. {@code null} for a
	 * fixed delay.
	 */
	public @Nullable Instant firstAfter(Instant due, Instant now) {
		if (this.cron != null) {
			return after(this.cron, now.isAfter(due) ? now : due);
		}
		if (this.fixedRate != null) {
			long rate = this.fixedRate.toNanos();
			long behind = Duration.between(due, now).toNanos();
			long steps = (behind < 0) ? 1 : behind / rate + 1;
			return due.plusNanos(steps * rate);
		}
		return null;
	}

	/** The first time the cron expression fires strictly after {@code instant}, in the schedule's zone. */
	private Instant after(CronExpression cron, Instant instant) {
		ZonedDateTime next = cron.next(instant.atZone(this.zone));
		// Asked from 02:30 of the first pass of a repeated hour, CronExpression answers 02:30 of the second pass:
		// a wall-clock time fires once, in the first pass.
		while (next != null && isSecondPass(next)) {
			next = cron.next(next);
		}
		if (next == null) {
			throw new IllegalStateException(this.text + " does not fire after " + instant);
		}
		return next.toInstant();
	}

	private boolean isSecondPass(ZonedDateTime time) {
		ZoneOffsetTransition transition = this.zone.getRules().getTransition(time.toLocalDateTime());
		return transition != null && transition.isOverlap() && time.getOffset().equals(transition.getOffsetAfter());
	}

	/** What the schedule runs on, as stored in its row: {@code cron 0 0 2 * * * Europe/Paris}. */
	@Override
	public String toString() {
		return this.text;
	}

}
