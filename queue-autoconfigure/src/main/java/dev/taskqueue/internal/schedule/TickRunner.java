package dev.taskqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;

import dev.taskqueue.EnqueueResult;
import dev.taskqueue.RecurringTask.Missed;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.producer.DefaultTaskQueue;
import dev.taskqueue.internal.support.ScheduledAtHeader;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionOperations;

/**
 * Makes one tick of a schedule: in one transaction, moves the schedule's row from the tick to the next one (a
 * compare-and-set that one instance wins) and enqueues the tick's task, so that tick and task commit together.
 */
final class TickRunner {

	/** What came of a tick. */
	enum Outcome {

		/** This instance enqueued the tick's task. */
		ENQUEUED,

		/** The previous tick's task still waited or ran: counted as skipped. */
		SKIPPED,

		/** The tick was missed while no instance ran, and the schedule skips missed ticks. */
		MISSED,

		/** Another instance made the tick, or the schedule was paused or declared otherwise meanwhile. */
		LOST

	}

	private final ScheduleRepository schedules;

	private final EnqueueRepository tasks;

	private final TransactionOperations transactions;

	private final TaskQueueListener listener;

	private final Duration missedAfter;

	/**
	 * @param missedAfter how late a tick must be to count as missed: no live instance leaves a due tick that long
	 */
	TickRunner(ScheduleRepository schedules, EnqueueRepository tasks, TransactionOperations transactions,
			TaskQueueListener listener, Duration missedAfter) {
		this.schedules = schedules;
		this.tasks = tasks;
		this.transactions = transactions;
		this.listener = listener;
		this.missedAfter = missedAfter;
	}

	/** Makes the tick of {@code schedule} due at {@code due}, the database's clock reading {@code now}. */
	Outcome tick(Schedule schedule, Instant due, Instant now) {
		// So late that no live instance can have been there: the ticks since were missed, not merely held up.
		boolean late = Duration.between(due, now).compareTo(this.missedAfter) > 0;
		boolean missed = late && schedule.missed() == Missed.SKIP;
		ScheduleSpec spec = schedule.spec();
		@Nullable Instant next = late ? spec.firstAfter(due, now) : spec.next(due);
		if (next == null && missed) {
			next = now.plus(spec.delay()); // no task to wait for
		}
		Instant nextRun = next;
		Outcome outcome = this.transactions.execute((status) -> {
			if (!this.schedules.tick(schedule.name(), spec.toString(), due, nextRun, missed)) {
				return Outcome.LOST;
			}
			if (missed) {
				return Outcome.MISSED;
			}
			EnqueueResult result = enqueue(schedule.name(), schedule.queue(), schedule.payload(), schedule.keyed(),
					due);
			return result.duplicate() ? Outcome.SKIPPED : Outcome.ENQUEUED;
		});
		return (outcome != null) ? outcome : Outcome.LOST;
	}

	/**
	 * Enqueues one task of the schedule {@code name} for the tick {@code tick}, in the caller's transaction, and
	 * records it on the schedule's row, or counts it as skipped when it is a duplicate.
	 */
	EnqueueResult enqueue(String name, String queue, String payload, boolean keyed, Instant tick) {
		EnqueueResult result = DefaultTaskQueue.offerJson(this.tasks, queue, payload, ScheduledAtHeader.headers(tick),
				keyed ? name : null);
		if (result.duplicate()) {
			this.schedules.recordSkip(name);
		}
		else {
			this.schedules.recordTask(name, result.id());
			this.listener.enqueued(queue, 1);
		}
		return result;
	}

}
