package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.taskqueue.internal.dashboard.QueueMinuteRepository.MinuteCount;

/**
 * Queues' figures over time, from {@code taskqueue_queue_minute}: attempts completed and failed, summed per bar, and
 * the ready tasks and the oldest one's wait, the highest sample per bar. The overview shows the last hour of every
 * queue ({@link #lastHour}); a queue's page shows its last hour and its last day ({@link #of}).
 */
final class Trends {

	/** The last hour, a bar a minute. */
	static final Span HOUR = new Span(60, 1, "Last hour, per minute");

	/** The last day, a bar per quarter of an hour. */
	static final Span DAY = new Span(96, 15, "Last day, per 15 minutes");

	/** How far back the rule of {@link Series#fallingBehind()} looks, and the least wait it calls falling behind. */
	static final int BEHIND_MINUTES = 10;

	static final Duration BEHIND_WAIT = Duration.ofMinutes(1);

	private final Map<String, Series> queues = new HashMap<>();

	private final Span span;

	private Trends(Span span) {
		this.span = span;
	}

	/** Every queue's last hour, from the minutes of all queues. */
	static Trends lastHour(List<MinuteCount> minutes) {
		Trends trends = new Trends(HOUR);
		for (MinuteCount minute : minutes) {
			trends.queues.computeIfAbsent(minute.queue(), (queue) -> new Series(HOUR)).add(minute);
		}
		return trends;
	}

	/** One queue's figures over {@code span}, from its own minutes. */
	static Series of(Span span, List<MinuteCount> minutes) {
		Series series = new Series(span);
		minutes.forEach(series::add);
		return series;
	}

	/** The queue's figures, all zero and unsampled when it has none. */
	Series queue(String queue) {
		return this.queues.getOrDefault(queue, new Series(this.span));
	}

	/**
	 * How far back a chart reaches and how wide its bars are.
	 * @param bars how many bars, the oldest first
	 * @param minutesPerBar how many minutes each bar stands for
	 * @param title what the charts of this span are called
	 */
	record Span(int bars, int minutesPerBar, String title) {

		int minutes() {
			return this.bars * this.minutesPerBar;
		}

	}

	/**
	 * One queue's figures over a {@link Span}, oldest first. A bar of {@link #ready} or {@link #oldestSeconds} is
	 * {@code -1} when no instance sampled the queue in its minutes.
	 */
	static final class Series {

		final Span span;

		final long[] completed;

		final long[] failed;

		final long[] ready;

		final long[] oldestSeconds;

		Series(Span span) {
			this.span = span;
			this.completed = new long[span.bars()];
			this.failed = new long[span.bars()];
			this.ready = new long[span.bars()];
			this.oldestSeconds = new long[span.bars()];
			Arrays.fill(this.ready, -1);
			Arrays.fill(this.oldestSeconds, -1);
		}

		private void add(MinuteCount minute) {
			int bar = this.span.bars() - 1 - minute.minutesAgo() / this.span.minutesPerBar();
			if (minute.minutesAgo() < 0 || bar < 0) {
				return;
			}
			this.completed[bar] += minute.completed();
			this.failed[bar] += minute.failed();
			if (minute.ready() != null) {
				this.ready[bar] = Math.max(this.ready[bar], minute.ready());
			}
			if (minute.oldestReadySeconds() != null) {
				this.oldestSeconds[bar] = Math.max(this.oldestSeconds[bar], minute.oldestReadySeconds());
			}
		}

		/**
		 * Whether the queue is falling behind: its latest sample (of the last three bars) has more ready tasks, and
		 * an oldest one that has waited longer, than the latest sample at least {@link #BEHIND_MINUTES} minutes
		 * before it, and that oldest task has waited at least {@link #BEHIND_WAIT}. A queue that drains, even
		 * slowly, has fewer ready tasks; one that keeps up with a steady backlog keeps as many.
		 */
		boolean fallingBehind() {
			int latest = latestSample(this.span.bars() - 1, 3);
			if (latest < 0) {
				return false;
			}
			int back = (BEHIND_MINUTES + this.span.minutesPerBar() - 1) / this.span.minutesPerBar();
			int earlier = latestSample(latest - back, Integer.MAX_VALUE);
			return earlier >= 0 && this.oldestSeconds[latest] >= BEHIND_WAIT.toSeconds()
					&& this.oldestSeconds[latest] > this.oldestSeconds[earlier]
					&& this.ready[latest] > this.ready[earlier];
		}

		/** The last bar at or before {@code from}, looking back at most {@code within} bars, that has a sample. */
		private int latestSample(int from, int within) {
			for (int bar = from; bar >= 0 && from - bar < within; bar--) {
				if (this.ready[bar] >= 0 && this.oldestSeconds[bar] >= 0) {
					return bar;
				}
			}
			return -1;
		}

	}

}
