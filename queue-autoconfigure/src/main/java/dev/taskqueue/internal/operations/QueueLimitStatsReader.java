package dev.taskqueue.internal.operations;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntBiFunction;

import dev.taskqueue.TaskQueueOperations.QueueLimitStats;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.internal.jdbc.QueueLimits;
import org.jspecify.annotations.Nullable;

/**
 * Adds to the statistics of the queues with cluster-wide limits what those limits hold back. The ready and running
 * counts come from the statistics; the starts of the current rate window take one read of the queue's row each.
 * Without limited queues it reads nothing.
 */
final class QueueLimitStatsReader {

	/** No limited queue: the statistics stay as they are. */
	public static final QueueLimitStatsReader NONE = new QueueLimitStatsReader(null, Map.of());

	private final @Nullable ToIntBiFunction<String, QueueLimits> starts;

	private final Map<String, QueueLimits> limits;

	/**
	 * @param starts how many tasks of a queue count against its rate limit now (the worker's
	 * {@code TaskWorker.Builder.rateWindowStarts})
	 * @param limits the limits of each queue that has some, by queue name
	 */
	public QueueLimitStatsReader(@Nullable ToIntBiFunction<String, QueueLimits> starts,
			Map<String, QueueLimits> limits) {
		this.starts = starts;
		this.limits = Map.copyOf(limits);
	}

	/** The queues with limits, listed in the statistics even while they hold nothing. */
	Set<String> queues() {
		return this.limits.keySet();
	}

	List<QueueStats> withLimits(List<QueueStats> stats) {
		return this.limits.isEmpty() ? stats : stats.stream().map(this::withLimits).toList();
	}

	private QueueStats withLimits(QueueStats stats) {
		QueueLimits limits = this.limits.get(stats.queue());
		ToIntBiFunction<String, QueueLimits> starts = this.starts;
		if (limits == null || starts == null) {
			return stats;
		}
		long slots = limits.concurrencyLimited() ? Math.max(0, limits.globalConcurrency() - stats.running())
				: Long.MAX_VALUE;
		long started = starts.applyAsInt(stats.queue(), limits);
		long left = limits.rateLimited() ? Math.max(0, limits.rateLimit() - started) : Long.MAX_VALUE;
		long heldBack = stats.paused() ? 0 : Math.max(0, stats.ready() - Math.min(slots, left));
		String waitingFor = (heldBack == 0) ? null : (slots <= left) ? "global-concurrency" : "rate-limit";
		QueueLimitStats limitStats = new QueueLimitStats(
				limits.concurrencyLimited() ? limits.globalConcurrency() : null,
				limits.rateLimited() ? limits.rateLimit() : null, limits.ratePeriod(), started, heldBack, waitingFor);
		return new QueueStats(stats.queue(), stats.ready(), stats.scheduled(), stats.running(), stats.dead(),
				stats.oldestReadyAge(), stats.paused(), stats.waitingForKey(), limitStats, stats.unhandled(),
				stats.waitingForPrerequisites());
	}

}
