package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.TaskQueueOperations.QueueLimitStats;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import org.jspecify.annotations.Nullable;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;

/**
 * The answer to "why isn't my task running": how many waiting tasks an ordering key or the queue's limits hold
 * back, with the reason, and the limits as this instance is configured.
 */
final class HeldBack {

	private HeldBack() {
	}

	/** The overview's cell: the number held back, linked to the held tasks when a key holds some, and why. */
	static Object cell(PageContext context, QueueStats stats, int countLimit) {
		QueueLimitStats limits = stats.limits();
		long byLimits = (limits != null) ? limits.heldBack() : 0;
		long total = stats.waitingForKey() + byLimits;
		if (total == 0) {
			return "0";
		}
		List<String> reasons = new ArrayList<>();
		if (stats.waitingForKey() > 0) {
			reasons.add("key " + Formats.count(stats.waitingForKey(), countLimit));
		}
		if (byLimits > 0 && limits != null) {
			reasons.add(reason(limits.waitingFor()) + " " + Formats.count(byLimits, countLimit));
		}
		Object number = (stats.waitingForKey() > 0)
				? element("a", attrs("href", context.url("/queues/" + stats.queue() + "?view=held")),
						Formats.count(total, countLimit))
				: Formats.count(total, countLimit);
		return join(number, " ", element("span", attrs("class", "reason", "title",
				"key: behind an earlier task of the same ordering key; slot: global-concurrency reached; "
						+ "rate: rate limit reached until the next window"),
				"(" + String.join(", ", reasons) + ")"));
	}

	/** The queue page's line on its limits, empty for a queue without any. */
	static Html limits(@Nullable QueueLimitStats limits) {
		if (limits == null) {
			return Html.EMPTY;
		}
		List<String> parts = new ArrayList<>();
		if (limits.globalConcurrency() != null) {
			parts.add("global concurrency " + limits.globalConcurrency());
		}
		if (limits.rateLimit() != null && limits.ratePeriod() != null) {
			parts.add("rate " + limits.rateLimit() + " per " + period(limits.ratePeriod()) + " ("
					+ limits.startsInWindow() + " started in this window)");
		}
		String held = (limits.heldBack() > 0)
				? String.format(" · held back now: %,d, waiting for %s", limits.heldBack(), reason(limits.waitingFor()))
				: "";
		return element("p", attrs("class", "limits"), "Limits: " + String.join(", ", parts) + held);
	}

	/** A rate period as configured: {@code 1h}, {@code 1m}, {@code 10s}, else as ages are written. */
	private static String period(Duration period) {
		long seconds = period.toSeconds();
		if (period.toMillis() % 1000 != 0 || seconds == 0) {
			return Formats.age(period);
		}
		return (seconds % 3600 == 0) ? seconds / 3600 + "h" : (seconds % 60 == 0) ? seconds / 60 + "m" : seconds + "s";
	}

	private static String reason(@Nullable String waitingFor) {
		if ("global-concurrency".equals(waitingFor)) {
			return "slot";
		}
		return "rate-limit".equals(waitingFor) ? "rate" : "limits";
	}

}
