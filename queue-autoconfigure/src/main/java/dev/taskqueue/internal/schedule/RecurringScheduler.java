package dev.taskqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.worker.TaskWorker;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Ticks the schedules this instance declares, from one thread. At start it writes their rows; then it reads where
 * they stand (one statement), makes the ticks that are due, and sleeps until the earliest next one, at most one
 * poll interval, so that pauses, resumes and other instances' declarations are seen. Every decision uses the
 * database's clock: the JVM's clock only measures how long to sleep.
 */
class RecurringScheduler implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RecurringScheduler.class);

	private final Map<String, Schedule> schedules = new LinkedHashMap<>();

	private final ScheduleRepository repository;

	private final TickRunner ticks;

	private final Duration pollInterval;

	private final Duration seenInterval;

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private volatile DatabaseOutage outage = new DatabaseOutage();

	private final Object monitor = new Object();

	private volatile boolean running;

	private @Nullable Thread thread;

	private boolean wakeUp;

	RecurringScheduler(List<Schedule> schedules, ScheduleRepository repository, TickRunner ticks,
			Duration pollInterval, Duration seenInterval) {
		schedules.forEach((schedule) -> this.schedules.put(schedule.name(), schedule));
		this.repository = repository;
		this.ticks = ticks;
		this.pollInterval = pollInterval;
		this.seenInterval = seenInterval;
	}

	/** Says failures to reach the database through {@code outage}, shared by the instance's background loops. */
	public void reportOutagesTo(DatabaseOutage outage) {
		this.outage = outage;
	}

	/** After the worker, so that a tick's task finds its handler; stops first. */
	@Override
	public int getPhase() {
		return TaskWorker.PHASE + 1;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public synchronized void start() {
		if (this.running || this.schedules.isEmpty()) {
			return;
		}
		Instant now = this.repository.now();
		for (Schedule schedule : this.schedules.values()) {
			this.repository.declare(schedule.name(), schedule.queue(), schedule.spec().toString(), schedule.payload(),
					schedule.missed().name(), schedule.overlap().name(), schedule.spec().first(now));
		}
		this.running = true;
		Thread thread = new Thread(this::loop, "tq-scheduler");
		thread.setDaemon(true);
		thread.start();
		this.thread = thread;
		logger.info("TaskQueue recurring schedules: " + String.join(", ", this.schedules.values()
			.stream()
			.map((schedule) -> schedule.name() + " (" + schedule.spec() + ", queue " + schedule.queue() + ")")
			.toList()));
	}

	@Override
	public synchronized void stop() {
		this.running = false;
		Thread thread = this.thread;
		if (thread != null) {
			thread.interrupt();
			try {
				thread.join(10_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.thread = null;
		}
	}

	/** Looks at the schedules now rather than at the next tick, after an operator changed one. */
	public void wakeUp() {
		synchronized (this.monitor) {
			this.wakeUp = true;
			this.monitor.notifyAll();
		}
	}

	private void loop() {
		long lastSeen = System.nanoTime();
		while (this.running) {
			Duration sleep = this.pollInterval;
			long tried = System.nanoTime();
			try {
				sleep = runDue();
				if (System.nanoTime() - lastSeen >= this.seenInterval.toNanos()) {
					this.repository.seen(this.schedules.keySet());
					lastSeen = System.nanoTime();
				}
				this.outage.succeeded(tried);
			}
			catch (RuntimeException ex) {
				if (!this.outage.failed("tick the recurring schedules", ex)) {
					logger.warn("Recurring schedules could not be ticked; trying again in " + this.pollInterval, ex);
				}
			}
			if (!pause(sleep)) {
				return;
			}
		}
	}

	/**
	 * Makes the ticks that are due.
	 * @return how long to sleep: until the earliest next tick, at most a poll interval; zero when a tick was made,
	 * so that the schedules are read again at once
	 */
	Duration runDue() {
		Duration sleep = this.pollInterval;
		for (ScheduleRepository.ScheduleState state : this.repository.states(this.schedules.keySet())) {
			Schedule schedule = this.schedules.get(state.name());
			if (schedule == null || !schedule.spec().toString().equals(state.spec())) {
				continue; // an instance that declared it otherwise started later: its declaration wins
			}
			Instant due = state.nextRunAt();
			if (due == null) {
				if (schedule.spec().isFixedDelay() && state.lastTaskDone()
						&& this.repository.releaseDelay(schedule.name(), state.spec(), schedule.spec().delay())) {
					sleep = min(sleep, schedule.spec().delay());
				}
				continue;
			}
			if (due.isAfter(state.now())) {
				sleep = min(sleep, Duration.between(state.now(), due));
				continue;
			}
			TickRunner.Outcome outcome = this.ticks.tick(schedule, due, state.now());
			if (outcome == TickRunner.Outcome.SKIPPED && logger.isDebugEnabled()) {
				logger.debug("Skipped the tick of " + due + " of schedule " + schedule.name()
						+ ": the previous tick's task still waits or runs");
			}
			else if (outcome == TickRunner.Outcome.MISSED) {
				logger.info("Skipped missed ticks of schedule " + schedule.name() + " (missed = SKIP), due from "
						+ due);
			}
			sleep = Duration.ZERO;
		}
		return sleep;
	}

	/** @return {@code false} when the scheduler stops */
	private boolean pause(Duration sleep) {
		if (sleep.isZero()) {
			return this.running;
		}
		synchronized (this.monitor) {
			long deadline = System.nanoTime() + sleep.toNanos();
			try {
				while (!this.wakeUp && this.running) {
					long left = deadline - System.nanoTime();
					if (left <= 0) {
						break;
					}
					this.monitor.wait(left / 1_000_000, (int) (left % 1_000_000));
				}
			}
			catch (InterruptedException ex) {
				return false;
			}
			this.wakeUp = false;
		}
		return this.running;
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

}
