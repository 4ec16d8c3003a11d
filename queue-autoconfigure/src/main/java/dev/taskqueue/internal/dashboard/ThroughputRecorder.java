package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.internal.dashboard.QueueMinuteRepository.QueueCount;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.PeriodicThread;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Counts the attempts this instance completes and fails, per queue, in memory (an add to a counter per task), and
 * adds them to {@code taskqueue_queue_minute} every interval with one statement; once a minute the same statement
 * carries a sample of each queue's ready tasks and the oldest one's wait (read with the bounded queue statistics),
 * and the minutes older than {@link #KEEP} are deleted. Counts that could not be written are kept for the next try,
 * and written at shutdown.
 */
class ThroughputRecorder implements TaskQueueListener, SmartLifecycle {

	/** How long the minutes are kept: the trends show the last day, and an hour more lets a day be read whole. */
	static final Duration KEEP = Duration.ofHours(25);

	private static final Duration LAST_FLUSH = Duration.ofSeconds(2);

	private static final Log logger = LogFactory.getLog(ThroughputRecorder.class);

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private volatile DatabaseOutage outage = new DatabaseOutage();

	/** Says failures to reach the database through {@code outage}, shared by the instance's background loops. */
	void reportOutagesTo(DatabaseOutage outage) {
		this.outage = outage;
	}

	private final Map<String, Counts> counts = new ConcurrentHashMap<>();

	private final QueueMinuteRepository minutes;

	private final PeriodicThread thread;

	private final @Nullable Supplier<List<QueueStats>> queues;

	private long lastPruneMinute;

	private long lastSampleMinute;

	private boolean warned;

	/**
	 * @param queues the queues' statistics, sampled once a minute; {@code null} to sample nothing
	 */
	ThroughputRecorder(QueueMinuteRepository minutes, Duration interval, @Nullable Supplier<List<QueueStats>> queues) {
		this.minutes = minutes;
		this.queues = queues;
		this.thread = new PeriodicThread("tq-throughput", interval, interval, this::flush);
	}

	@Override
	public void completed(TaskContext task, Duration duration) {
		this.counts.computeIfAbsent(task.queue(), (queue) -> new Counts()).completed.increment();
	}

	@Override
	public void failed(TaskContext task, Duration duration, Throwable error, boolean dead) {
		this.counts.computeIfAbsent(task.queue(), (queue) -> new Counts()).failed.increment();
	}

	/** Writes what was counted since the last flush, and samples the queues and prunes once a minute; never throws. */
	void flush() {
		flush(true, false);
	}

	/** Writes what was counted since the last flush with a sample of the queues now, whatever the minute. */
	void sample() {
		flush(true, true);
	}

	private synchronized void flush(boolean prune, boolean sampleNow) {
		long minute = System.currentTimeMillis() / 60_000;
		boolean pruning = prune && minute != this.lastPruneMinute;
		boolean sampling = prune && this.queues != null && (sampleNow || minute != this.lastSampleMinute);
		Map<String, QueueCount> taken = new TreeMap<>();
		this.counts.forEach((queue, count) -> {
			long completed = count.completed.sumThenReset();
			long failed = count.failed.sumThenReset();
			if (completed != 0 || failed != 0) {
				taken.put(queue, new QueueCount(queue, completed, failed));
			}
		});
		if (taken.isEmpty() && !pruning && !sampling) {
			return; // nothing to write: no statement, so nothing learnt of the database (not "it is back")
		}
		long tried = System.nanoTime();
		try {
			if (sampling) {
				for (QueueStats queue : this.queues.get()) {
					QueueCount count = taken.get(queue.queue());
					taken.put(queue.queue(), new QueueCount(queue.queue(), (count != null) ? count.completed() : 0,
							(count != null) ? count.failed() : 0, queue.ready(), queue.oldestReadyAge().toSeconds()));
				}
			}
			this.minutes.add(List.copyOf(taken.values()));
			if (pruning) {
				this.minutes.prune(KEEP);
				this.lastPruneMinute = minute;
			}
			if (sampling) {
				this.lastSampleMinute = minute;
			}
			this.warned = false;
			this.outage.succeeded(tried);
		}
		catch (RuntimeException ex) {
			for (QueueCount count : taken.values()) {
				Counts back = this.counts.computeIfAbsent(count.queue(), (queue) -> new Counts());
				back.completed.add(count.completed());
				back.failed.add(count.failed());
			}
			// Once per outage: the dashboard's charts are not worth a log line every few seconds.
			if (!this.warned && !this.outage.failed("add the task counts for the dashboard", ex)) {
				logger.warn("Could not add this instance's task counts to taskqueue_queue_minute (the dashboard's "
						+ "charts); will try again: " + ex);
				this.warned = true;
			}
		}
	}

	@Override
	public void start() {
		this.thread.start();
	}

	@Override
	public void stop() {
		this.thread.stop();
		// Only what is left to write, and for a moment only: at shutdown the database may be going away too, and a
		// pool would wait its whole connection timeout for it. Charts are not worth holding up a shutdown.
		Thread last = new Thread(() -> flush(false, false), "tq-throughput-last");
		last.setDaemon(true);
		last.start();
		try {
			last.join(LAST_FLUSH.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		last.interrupt();
	}

	@Override
	public boolean isRunning() {
		return this.thread.isRunning();
	}

	/** A lower phase than the worker's: stops after it, so that the counts of its last tasks are written too. */
	@Override
	public int getPhase() {
		return Integer.MAX_VALUE - 2048;
	}

	private static final class Counts {

		final LongAdder completed = new LongAdder();

		final LongAdder failed = new LongAdder();

	}

}
