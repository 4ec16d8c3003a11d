package dev.taskqueue.internal.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.QueueLimitStats;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.PeriodicThread;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Gauges of what each queue holds. They read the last statistics this class fetched, with one statement every
 * refresh interval on a thread of its own, so a scrape never touches the database however often it comes. A
 * queue's gauges appear the first time the queue is seen and stay, at zero when it is empty.
 */
class QueueGauges implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(QueueGauges.class);

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private volatile DatabaseOutage outage = new DatabaseOutage();

	/** Says failures to reach the database through {@code outage}, shared by the instance's background loops. */
	void reportOutagesTo(DatabaseOutage outage) {
		this.outage = outage;
	}

	private static final QueueStats EMPTY = new QueueStats("", 0, 0, 0, 0, Duration.ZERO, false);

	private final TaskQueueOperations operations;

	private final MeterRegistry registry;

	private final Duration interval;

	private final Map<String, QueueStats> latest = new ConcurrentHashMap<>();

	private final PeriodicThread thread;

	/** More gauges' reads that share this thread and its interval (the bloat figures), run after the queues'. */
	private volatile Runnable alsoRefresh = () -> {
	};

	QueueGauges(TaskQueueOperations operations, MeterRegistry registry, Duration interval) {
		this.operations = operations;
		this.registry = registry;
		this.interval = interval;
		this.thread = new PeriodicThread("tq-metrics", Duration.ZERO, interval, this::refresh);
	}

	@Override
	public void start() {
		this.thread.start();
	}

	@Override
	public void stop() {
		this.thread.stop();
	}

	@Override
	public boolean isRunning() {
		return this.thread.isRunning();
	}

	/** Runs {@code work} on this thread after each read of the queues, so that it too never runs on a scrape. */
	void alsoRefresh(Runnable work) {
		this.alsoRefresh = work;
	}

	/** Reads the statistics of every queue and registers the gauges of queues seen for the first time. */
	void refresh() {
		refreshQueues();
		try {
			this.alsoRefresh.run();
		}
		catch (RuntimeException ex) {
			if (!this.outage.failed("read the task tables' bloat figures for the gauges", ex)) {
				logger.warn("Could not read the TaskQueue tables' bloat figures for the gauges, trying again in "
						+ this.interval + ": " + ex);
			}
		}
	}

	private void refreshQueues() {
		long tried = System.nanoTime();
		try {
			Map<String, QueueStats> read = new ConcurrentHashMap<>();
			for (QueueStats stats : this.operations.queueStats()) {
				read.put(stats.queue(), stats);
			}
			this.outage.succeeded(tried);
			this.latest.replaceAll((queue, stats) -> read.getOrDefault(queue, EMPTY));
			read.forEach((queue, stats) -> {
				if (this.latest.put(queue, stats) == null) {
					register(queue);
					if (stats.limits() != null) {
						registerHeldBack(queue);
					}
				}
			});
		}
		catch (RuntimeException ex) {
			if (!this.outage.failed("read the queue statistics for the gauges", ex)) {
				logger.warn("Could not read the TaskQueue queue statistics for the gauges, trying again in "
						+ this.interval + ": " + ex);
			}
		}
	}

	private void register(String queue) {
		gauge("taskqueue.queue.ready", queue, "Tasks due now and not running", QueueStats::ready);
		gauge("taskqueue.queue.scheduled", queue, "Tasks waiting for a later time, retries included",
				QueueStats::scheduled);
		gauge("taskqueue.queue.running", queue, "Tasks claimed by an instance", QueueStats::running);
		gauge("taskqueue.queue.dead", queue, "Tasks in the dead letters", QueueStats::dead);
		gauge("taskqueue.queue.waiting.for.key", queue, "Tasks held behind an earlier task with their ordering key",
				QueueStats::waitingForKey);
		gauge("taskqueue.queue.waiting.for.prerequisites", queue, "Tasks waiting for the tasks they depend on",
				QueueStats::waitingForPrerequisites);
		TimeGauge.builder("taskqueue.queue.oldest.ready.age", this,
				TimeUnit.MILLISECONDS, (gauges) -> gauges.stats(queue).oldestReadyAge().toNanos() / 1e6)
			.tag("queue", queue)
			.description("How long the longest-waiting ready task has been due")
			.register(this.registry);
	}

	/** Ready tasks a limit keeps from starting, one gauge per limit: what a queue with limits waits for. */
	private void registerHeldBack(String queue) {
		for (String limit : new String[] { "global-concurrency", "rate-limit" }) {
			Gauge.builder("taskqueue.queue.held.back", this, (gauges) -> {
				QueueLimitStats limits = gauges.stats(queue).limits();
				return (limits != null && limit.equals(limits.waitingFor())) ? limits.heldBack() : 0;
			})
				.tag("queue", queue)
				.tag("limit", limit)
				.description("Ready tasks that the queue's global-concurrency or rate-limit keeps from starting now")
				.register(this.registry);
		}
	}

	private void gauge(String name, String queue, String description, ToDoubleFunction<QueueStats> value) {
		Gauge.builder(name, this, (gauges) -> value.applyAsDouble(gauges.stats(queue)))
			.tag("queue", queue)
			.description(description)
			.register(this.registry);
	}

	private QueueStats stats(String queue) {
		return this.latest.getOrDefault(queue, EMPTY);
	}

}
