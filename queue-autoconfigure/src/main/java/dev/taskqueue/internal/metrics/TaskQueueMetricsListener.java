package dev.taskqueue.internal.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskQueueListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Counts and times what happens to tasks in this instance. An enqueue counts when its transaction commits, so a
 * rolled-back business transaction leaves no trace; every attempt counts once under the {@code outcome} it had.
 */
class TaskQueueMetricsListener implements TaskQueueListener {

	static final String ENQUEUED = "taskqueue.tasks.enqueued";

	static final String PROCESSED = "taskqueue.tasks.processed";

	static final String DURATION = "taskqueue.tasks.duration";

	static final String PICKUP_LATENCY = "taskqueue.tasks.pickup.latency";

	private final MeterRegistry registry;

	// Meters are looked up once per queue and outcome: a registry lookup on every task would allocate ids and tags.
	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	TaskQueueMetricsListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void enqueued(String queue, int count) {
		Counter enqueued = counter(ENQUEUED, queue, null);
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					enqueued.increment(count);
				}

			});
		}
		else {
			enqueued.increment(count);
		}
	}

	/**
	 * The longest duration a timer records: {@code Timer.record(Duration)} takes nanoseconds in a long, which
	 * overflows past 292 years. A task can be due that long ago only if its row was written by hand (enqueue refuses
	 * run-at times beyond 100 years), and recording such a latency as the longest beats failing the listener on
	 * every run of it.
	 */
	static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

	@Override
	public void started(TaskContext task, Duration pickupLatency) {
		timer(PICKUP_LATENCY, task.queue(), null).record(clamped(pickupLatency));
	}

	@Override
	public void completed(TaskContext task, Duration duration) {
		// Timed before counted: whoever reads the count also finds the task's time.
		timer(DURATION, task.queue(), "completed").record(clamped(duration));
		counter(PROCESSED, task.queue(), "completed").increment();
	}

	@Override
	public void failed(TaskContext task, Duration duration, Throwable error, boolean dead) {
		String outcome = dead ? "dead" : "retried";
		// Zero means the handler never ran (unreadable payload, attempts used up by crashes): nothing to time.
		if (!duration.isZero()) {
			timer(DURATION, task.queue(), outcome).record(clamped(duration));
		}
		counter(PROCESSED, task.queue(), outcome).increment();
	}

	@Override
	public void claimLost(TaskContext task) {
		counter(PROCESSED, task.queue(), "claim-lost").increment();
	}

	@Override
	public void cancelled(TaskContext task, Duration duration) {
		counter(PROCESSED, task.queue(), "cancelled").increment();
	}

	private static Duration clamped(Duration duration) {
		return (duration.compareTo(LONGEST) > 0) ? LONGEST : duration.isNegative() ? Duration.ZERO : duration;
	}

	private Counter counter(String name, String queue, @Nullable String outcome) {
		return this.counters.computeIfAbsent(key(name, queue, outcome), (key) -> {
			Counter.Builder builder = Counter.builder(name).tag("queue", queue);
			if (outcome != null) {
				builder.tag("outcome", outcome);
			}
			return builder.description(description(name)).register(this.registry);
		});
	}

	private Timer timer(String name, String queue, @Nullable String outcome) {
		return this.timers.computeIfAbsent(key(name, queue, outcome), (key) -> {
			Timer.Builder builder = Timer.builder(name).tag("queue", queue);
			if (outcome != null) {
				builder.tag("outcome", outcome);
			}
			return builder.description(description(name)).register(this.registry);
		});
	}

	private static String key(String name, String queue, @Nullable String outcome) {
		return name + '\n' + queue + '\n' + outcome;
	}

	private static @Nullable String description(String name) {
		return switch (name) {
			case ENQUEUED -> "Tasks enqueued by this instance, counted when their transaction committed";
			case PROCESSED ->
				"Attempts run by this instance, by outcome: completed, retried, dead, claim-lost or cancelled";
			case DURATION -> "Time from a handler's start to its task's completion or failure being known";
			case PICKUP_LATENCY -> "Time from when a task was due to when it was claimed, on the database clock";
			default -> null;
		};
	}

}
