package dev.taskqueue.internal.schedule;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;

import dev.taskqueue.QueueName;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;

/**
 * Turns what a {@code @RecurringTask} or {@code taskqueue.schedules.<name>} says into a {@link ScheduleSpec}, with
 * messages that name where the bad value was written.
 */
final class ScheduleParser {

	private ScheduleParser() {
	}

	/**
	 * @param where the declaration, for messages, such as {@code @RecurringTask on bean 'reports' method ...}
	 * @throws IllegalArgumentException naming {@code where} and the value at fault
	 */
	static ScheduleSpec spec(String where, @Nullable String cron, @Nullable String zone, @Nullable String fixedRate,
			@Nullable String fixedDelay) {
		int set = (hasText(cron) ? 1 : 0) + (hasText(fixedRate) ? 1 : 0) + (hasText(fixedDelay) ? 1 : 0);
		if (set != 1) {
			throw new IllegalArgumentException(where + " must set exactly one of cron, fixedRate and fixedDelay but "
					+ ((set == 0) ? "sets none" : "sets " + set));
		}
		if (hasText(zone) && !hasText(cron)) {
			throw new IllegalArgumentException(where + " sets zone '" + zone + "', which applies to cron only");
		}
		if (hasText(cron)) {
			ZoneId zoneId = zone(where, zone);
			try {
				return ScheduleSpec.cron(cron.trim(), zoneId);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(where + " has an invalid cron expression '" + cron + "': "
						+ ex.getMessage(), ex);
			}
		}
		if (hasText(fixedRate)) {
			return positive(where, "fixedRate", fixedRate, ScheduleSpec::fixedRate);
		}
		return positive(where, "fixedDelay", fixedDelay, ScheduleSpec::fixedDelay);
	}

	/** @throws IllegalArgumentException if {@code name} cannot be a queue name, which a schedule's name must be */
	static String name(String where, String name) {
		if (!QueueName.isValid(name)) {
			throw new IllegalArgumentException(where + " has an invalid name '" + name
					+ "': a schedule name is 1 to 100 letters, digits, '.', '_', '-' or ':'");
		}
		return name;
	}

	private static ZoneId zone(String where, @Nullable String zone) {
		if (!hasText(zone)) {
			return ZoneId.of("UTC");
		}
		try {
			return ZoneId.of(zone.trim());
		}
		catch (DateTimeException ex) {
			throw new IllegalArgumentException(where + " has an invalid zone '" + zone + "': " + ex.getMessage(), ex);
		}
	}

	private static ScheduleSpec positive(String where, String attribute, String text,
			java.util.function.Function<Duration, ScheduleSpec> spec) {
		Duration duration;
		try {
			duration = DurationStyle.detectAndParse(text.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(where + " has an invalid " + attribute + " '" + text
					+ "': use a duration such as 30s, 5m, 500ms or PT1H", ex);
		}
		try {
			return spec.apply(duration);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(where + " has an invalid " + attribute + " '" + text + "': "
					+ ex.getMessage(), ex);
		}
	}

	static boolean hasText(@Nullable String text) {
		return text != null && !text.isBlank();
	}

}
