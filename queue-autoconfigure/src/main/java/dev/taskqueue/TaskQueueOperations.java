package dev.taskqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

/**
 * What an operator does to queues while they run: pause and resume them for every instance, list, read, retry or
 * delete dead tasks, cancel waiting or running ones, and look at the queues and the live instances. The actuator
 * endpoint {@code taskqueue} is built on this interface; use it for admin screens of your own.
 * <p>
 * Every method runs on the application's {@code DataSource} and joins the caller's transaction when there is one.
 */
public interface TaskQueueOperations {

	/**
	 * Stops every instance from starting tasks of {@code queue}; running tasks finish. This instance stops at once
	 * (once the caller's transaction, if any, commits) and gives back the tasks it claimed but had not started;
	 * the others notice within one heartbeat interval. A queue may be paused before it has any task.
	 * @throws IllegalArgumentException if the queue name is invalid
	 */
	void pause(String queue);

	/**
	 * Lets every instance start tasks of {@code queue} again: this one at once, the others within one heartbeat
	 * interval.
	 * @throws IllegalArgumentException if the queue name is invalid
	 */
	void resume(String queue);

	/** Whether {@code queue} is paused. */
	boolean isPaused(String queue);

	/** The queues that are paused. */
	Set<String> pausedQueues();

	/**
	 * A page of dead tasks, newest first. Pages are read with a cursor (keyset paging), so every page costs the
	 * same on a large dead-letter table, and a task that dies while you page shows on the first page rather than
	 * shifting the others.
	 * @param queue the queue whose dead tasks to list, or {@code null} for every queue
	 * @param limit how many tasks at most, from 1 to {@link DeadTaskPage#MAX_LIMIT}
	 * @param cursor {@code null} for the first page, else the {@link DeadTaskPage#next()} of the page before
	 * @throws IllegalArgumentException if the queue name is invalid, the limit out of range, or the cursor not one
	 * this method returned
	 */
	DeadTaskPage deadTasks(@Nullable String queue, int limit, @Nullable String cursor);

	/** The dead task {@code id}, if there is one. */
	Optional<DeadTask> deadTask(UUID id);

	/**
	 * Moves a dead task back to its queue, ready at once, with its attempts counted from zero again and the fairness
	 * key it was enqueued with ({@link DeadTask#fairnessKey()}), so that fair claims take it as its tenant's.
	 * @return {@code false} when there is no dead task with this id
	 */
	boolean retryDead(UUID id);

	/**
	 * Moves every dead task of {@code queue} back to it, as {@link #retryDead(UUID)} does.
	 * @return how many tasks were moved
	 */
	int retryAllDead(String queue);

	/**
	 * Deletes a dead task.
	 * @return {@code false} when there is no dead task with this id
	 */
	boolean deleteDead(UUID id);

	/**
	 * Deletes every dead task of {@code queue}.
	 * @return how many were deleted
	 */
	int deleteAllDead(String queue);

	/**
	 * Moves every dead task that matches {@code filter}, and had failed when this was called, back to its queue, as
	 * {@link #retryDead(UUID)} does. Outside a transaction they are moved in chunks of
	 * {@value #BULK_CHUNK}, each committed on its own, so that a million dead letters never hold one long
	 * transaction; in the caller's transaction they go with it. A task that dies again meanwhile is not taken twice.
	 * Logs one line at INFO with the filter and the count.
	 * @return how many tasks were moved
	 */
	default int retryDead(TaskFilter filter) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not retry dead tasks in bulk");
	}

	/**
	 * Deletes every dead task that matches {@code filter} and had failed when this was called, in chunks as
	 * {@link #retryDead(TaskFilter)} does. Logs one line at INFO with the filter and the count.
	 * @return how many were deleted
	 * @throws IllegalArgumentException if the filter is {@linkplain TaskFilter#isEmpty() empty}: every dead letter of
	 * every queue is not deleted by a filter that forgot its conditions ({@link #deleteAllDead(String)} deletes a
	 * queue's)
	 */
	default int deleteDead(TaskFilter filter) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not delete dead tasks in bulk");
	}

	/** How many tasks a bulk retry or delete moves, makes due or deletes per transaction. */
	int BULK_CHUNK = 1000;

	/**
	 * Makes every task that matches {@code filter} and waits (ready, scheduled, waiting to be retried, or held behind
	 * an earlier task of its ordering key), enqueued when this was called, due at once: a task due later runs now,
	 * one already due keeps its place. Its attempts are kept: a waiting task still has the attempts it has not used,
	 * where a retried dead task has none left and is given them all again ({@link #retryDead(UUID)}). Running tasks
	 * are left alone and not counted, and so are tasks waiting for their prerequisites, which have not run. Outside
	 * a transaction the tasks are changed in chunks of {@value #BULK_CHUNK}, each committed on its own, so that a
	 * million waiting tasks never hold one long transaction; in the caller's transaction they go with it. Logs one
	 * line at INFO with the filter, the count and how many running tasks that match were left alone.
	 * @return how many tasks were made due
	 */
	default int retryWaiting(TaskFilter filter) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not retry waiting tasks in bulk");
	}

	/**
	 * Deletes every task that matches {@code filter} and waits, enqueued when this was called, in chunks as
	 * {@link #retryWaiting(TaskFilter)} changes them; running tasks are left alone and not counted. As with
	 * {@link #cancelAll(String)}, the deleted tasks are not kept in the history. Logs one line at INFO with the
	 * filter, the count and how many running tasks that match were left alone.
	 * @return how many were deleted
	 * @throws IllegalArgumentException if the filter is {@linkplain TaskFilter#isEmpty() empty}: every waiting task of
	 * every queue is not deleted by a filter that forgot its conditions ({@link #cancelAll(String)} deletes a
	 * queue's)
	 */
	default int deleteWaiting(TaskFilter filter) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not delete waiting tasks in bulk");
	}

	/**
	 * Cancels a task that waits to run (ready, scheduled, waiting for a retry, or waiting for its prerequisites) or
	 * runs, on any instance. The task is deleted at once (with the caller's transaction, if any): a waiting one never
	 * runs; a running one's handler can no longer complete it. Its instance interrupts the handler (within about a
	 * second where the database has {@code LISTEN/NOTIFY}, else within a heartbeat interval), and the handler may ask
	 * {@link TaskContext#isCancelled()} between steps; whenever the handler returns, its transaction rolls back, and
	 * the task is neither retried nor sent to the dead letters. A task whose handler commits first is not cancelled.
	 * With {@code taskqueue.history.enabled} the history keeps the task with outcome {@code cancelled}. The tasks
	 * that depend on a cancelled task count it as completed (docs/dependencies.md). Who asked is not named; see
	 * {@link #cancel(UUID, String)}.
	 * @return {@code false} when no task with this id waits or runs (it completed, is dead, or never existed)
	 */
	boolean cancel(UUID id);

	/**
	 * {@link #cancel(UUID)}, naming who asked: kept with the cancellation, in the log and, with
	 * {@code taskqueue.history.enabled}, in the history ({@code cancelled_by}). The endpoint and the dashboard name
	 * the signed-in user.
	 * @param id the task
	 * @param requestedBy who asked, for instance a user name; {@code null} when unnamed
	 * @return {@code false} when no task with this id waits or runs
	 * @throws IllegalArgumentException if {@code requestedBy} is blank, longer than 200 characters, or has text
	 * PostgreSQL cannot store
	 */
	default boolean cancel(UUID id, @Nullable String requestedBy) {
		return cancel(id);
	}

	/**
	 * Deletes every task of {@code queue} that waits to run (ready, scheduled, waiting for a retry, or waiting for
	 * its prerequisites), for instance after enqueueing far more than was meant. Running tasks are left alone (cancel
	 * them one by one with {@link #cancel(UUID)}), and so are tasks enqueued in transactions that have not committed
	 * yet. Outside a transaction the tasks are deleted in batches of 10,000, each committed on its own, so that a
	 * large queue never holds one long transaction; in the caller's transaction they go all at once, with it.
	 * @return how many tasks were deleted
	 * @throws IllegalArgumentException if the queue name is invalid
	 */
	int cancelAll(String queue);

	/**
	 * What each queue holds, one entry per queue that has tasks, dead tasks, a pause, a handler in this instance,
	 * or limits configured in this instance (with what they hold back). Counts are exact up to {@code taskqueue.metrics.count-limit} and stop there, so that reading them
	 * stays cheap on a large backlog.
	 */
	List<QueueStats> queueStats();

	/**
	 * What {@code queue} holds, as {@link #queueStats()} reports it, with zeros when it holds nothing; only this
	 * queue's tasks are counted, so it costs a fraction of {@link #queueStats()} when there are many queues.
	 * @throws IllegalArgumentException if the queue name is invalid
	 */
	QueueStats queueStats(String queue);

	/** The instances whose sessions are alive, oldest first. */
	List<WorkerSessionInfo> sessions();

	/**
	 * The recurring schedules in the database, by name, including those no running instance declares any longer.
	 */
	default List<ScheduleInfo> schedules() {
		throw new UnsupportedOperationException("This TaskQueueOperations does not manage recurring schedules");
	}

	/**
	 * Stops ticking the schedule {@code name} in every instance, until {@link #resumeSchedule(String) resumed};
	 * a task already enqueued runs.
	 * @return {@code false} when there is no such schedule
	 */
	default boolean pauseSchedule(String name) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not manage recurring schedules");
	}

	/**
	 * Ticks the schedule {@code name} again. Ticks due while it was paused become one tick, due at once; then the
	 * schedule goes on.
	 * @return {@code false} when there is no such schedule
	 */
	default boolean resumeSchedule(String name) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not manage recurring schedules");
	}

	/**
	 * Enqueues one task of the schedule {@code name} now, outside its ticks, paused or not, with its queue and
	 * payload; the schedule's next tick does not move. With {@code overlap = SKIP}, nothing is added while a task of
	 * the schedule waits or runs.
	 * @return the id of the task, or of the one that still waits or runs; empty when there is no such schedule
	 */
	default Optional<UUID> triggerSchedule(String name) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not manage recurring schedules");
	}

	/**
	 * How far batch {@code id} (see {@link TaskQueue#enqueueBatch}) has got. Finished batches are kept for
	 * {@code taskqueue.retention.dead-letters}.
	 * @return its progress, or empty when there is no such batch
	 */
	Optional<BatchProgress> batch(UUID id);

	/**
	 * How far task {@code id} has got, as its handler last said with {@link TaskContext#progress(int, String)}: the
	 * running attempt's progress, written at most once per {@code taskqueue.progress.write-interval} (1s).
	 * @return its progress, or empty when the task is not running or its running attempt has reported none
	 */
	default Optional<TaskProgress> progress(UUID id) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not read progress");
	}

	/**
	 * The story of task {@code id}: its last attempts (at most 10) with their start, end, instance, outcome and the
	 * start of their error, oldest first, wherever the task is (waiting, running, dead, or completed or cancelled in
	 * the history, {@code taskqueue.history.enabled}). Only a task that failed at least once has a log: a task whose
	 * first attempt completed has none (see docs/failure-semantics.md).
	 * @return its attempts; empty when it never failed, or there is no such task
	 */
	default List<DeadTask.Attempt> attempts(UUID id) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not read attempt logs");
	}

	/**
	 * The result of task {@code id} (its handler's return value, or what it gave {@link TaskContext#result(Object)}),
	 * read from JSON as {@code type} with the application's {@code JsonMapper}. A result is kept for
	 * {@code taskqueue.retention.history} (7 days) after its task completed, whether the history is on or not.
	 * @return the result, or empty when the task has not completed, completed without a result, or completed longer
	 * ago than the retention
	 * @throws IllegalArgumentException if the stored JSON cannot be read as {@code type}
	 */
	default <T> Optional<T> result(UUID id, Class<T> type) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not read results");
	}

	/**
	 * Gives {@code each} the result of every task of batch {@code batchId} (see {@link TaskQueue#enqueueBatch}) that
	 * completed with one, in the order of their ids, read as {@code type}; the batch's {@code then} task reads its
	 * parts' results so ({@link TaskContext#batch()}). Results are read a page at a time, so a batch of any size
	 * needs little memory; tasks that went to the dead letters or gave no result are not given.
	 * @return how many results were given
	 * @throws IllegalArgumentException if a stored result cannot be read as {@code type}
	 */
	default <T> int batchResults(UUID batchId, Class<T> type, BiConsumer<UUID, ? super T> each) {
		throw new UnsupportedOperationException("This TaskQueueOperations does not read results");
	}

	/**
	 * Which tasks a bulk action takes: those that meet every condition given ({@code null} leaves a condition out;
	 * all {@code null} takes every task the action looks at). The same filter serves the dead letters
	 * ({@link #retryDead(TaskFilter)}) and the waiting tasks ({@link #retryWaiting(TaskFilter)}); its times are when a
	 * task failed: a dead task's last attempt, or the last failed attempt of a waiting task (the end of the last
	 * entry of its {@linkplain #attempts(UUID) attempt log}). A waiting task that never failed has no such time and
	 * matches no time condition.
	 *
	 * @param queue only this queue's
	 * @param errorContains only those whose error (a waiting task's last error) contains this text, ignoring case
	 * @param from only those that (last) failed at this time or later
	 * @param before only those that (last) failed before this time
	 */
	record TaskFilter(@Nullable String queue, @Nullable String errorContains, @Nullable Instant from,
			@Nullable Instant before) {

		/**
		 * @throws IllegalArgumentException if the queue name is invalid, or {@code from} is not before
		 * {@code before}
		 */
		public TaskFilter {
			if (queue != null) {
				QueueName.requireValid(queue, "queue");
			}
			if (errorContains != null && errorContains.isEmpty()) {
				errorContains = null;
			}
			if (from != null && before != null && !from.isBefore(before)) {
				throw new IllegalArgumentException(
						"from must be earlier than before, but was " + from + " and " + before);
			}
		}

		/** Every task of {@code queue}. */
		public static TaskFilter queue(String queue) {
			return new TaskFilter(queue, null, null, null);
		}

		/** Whether a condition is given: without one, the filter takes every task. */
		public boolean isEmpty() {
			return this.queue == null && this.errorContains == null && this.from == null && this.before == null;
		}

		@Override
		public String toString() {
			StringBuilder out = new StringBuilder((this.queue != null) ? "queue " + this.queue : "every queue");
			if (this.errorContains != null) {
				out.append(", error contains \"").append(this.errorContains).append('"');
			}
			if (this.from != null) {
				out.append(", failed from ").append(this.from);
			}
			if (this.before != null) {
				out.append((this.from != null) ? " before " : ", failed before ").append(this.before);
			}
			return out.toString();
		}

	}

	/**
	 * What one queue holds.
	 *
	 * @param queue the queue name
	 * @param ready tasks due now and not running
	 * @param scheduled tasks waiting for a later time (delayed, or waiting to be retried)
	 * @param running tasks claimed by an instance
	 * @param dead tasks in the dead letters
	 * @param oldestReadyAge how long the longest-waiting ready task has been due, {@link Duration#ZERO} when none
	 * is
	 * @param paused whether the queue is paused
	 * @param waitingForKey tasks held behind an earlier task with their ordering key, not counted in {@code ready}
	 * or {@code scheduled}: "why isn't my task running"
	 * @param limits the queue's cluster-wide limits as this instance is configured, and what they hold back now;
	 * {@code null} for a queue without limits
	 * @param unhandled whether the queue has waiting tasks (ready, scheduled, held behind a key or waiting for
	 * prerequisites) and no live instance has a handler for it: its tasks wait until one starts. Enqueueing for such
	 * a queue is allowed (it may be another application's), so this is the place it shows.
	 * @param waitingForPrerequisites tasks waiting for the tasks they depend on ({@link TaskRequest#withDependsOn}),
	 * not counted in {@code ready} or {@code scheduled}
	 */
	record QueueStats(String queue, long ready, long scheduled, long running, long dead, Duration oldestReadyAge,
			boolean paused, long waitingForKey, @Nullable QueueLimitStats limits, boolean unhandled,
			long waitingForPrerequisites) {

		/** A queue without tasks waiting for prerequisites. */
		public QueueStats(String queue, long ready, long scheduled, long running, long dead, Duration oldestReadyAge,
				boolean paused, long waitingForKey, @Nullable QueueLimitStats limits, boolean unhandled) {
			this(queue, ready, scheduled, running, dead, oldestReadyAge, paused, waitingForKey, limits, unhandled, 0);
		}

		/** A queue without tasks held behind an ordering key and without limits. */
		public QueueStats(String queue, long ready, long scheduled, long running, long dead, Duration oldestReadyAge,
				boolean paused) {
			this(queue, ready, scheduled, running, dead, oldestReadyAge, paused, 0, null, false);
		}

		/** A queue not known to be unhandled. */
		public QueueStats(String queue, long ready, long scheduled, long running, long dead, Duration oldestReadyAge,
				boolean paused, long waitingForKey, @Nullable QueueLimitStats limits) {
			this(queue, ready, scheduled, running, dead, oldestReadyAge, paused, waitingForKey, limits, false);
		}

		/**
		 * Whether the queue has tasks waiting to run: ready, scheduled, held behind their ordering key or waiting
		 * for prerequisites.
		 */
		public boolean hasWaitingTasks() {
			return this.ready > 0 || this.scheduled > 0 || this.waitingForKey > 0 || this.waitingForPrerequisites > 0;
		}

		/** These statistics, with {@link #unhandled()} as given. */
		public QueueStats withUnhandled(boolean unhandled) {
			return new QueueStats(this.queue, this.ready, this.scheduled, this.running, this.dead, this.oldestReadyAge,
					this.paused, this.waitingForKey, this.limits, unhandled, this.waitingForPrerequisites);
		}

	}

	/**
	 * A queue's cluster-wide limits ({@code taskqueue.queues.<name>.global-concurrency} and {@code .rate-limit.*})
	 * and what they hold back: the answer to "why does my ready task not run".
	 *
	 * @param globalConcurrency the most tasks of the queue running at once across all instances, {@code null} when
	 * not limited
	 * @param rateLimit the most task starts per {@code ratePeriod}, {@code null} when not limited
	 * @param ratePeriod the length of a rate window, {@code null} when not limited
	 * @param startsInWindow how many tasks started in the current rate window: the last period for a sliding
	 * window, the current fixed window for a fixed one (0 without a rate limit)
	 * @param heldBack how many ready tasks the limits keep from starting now (0 while the queue is paused: the
	 * pause holds them)
	 * @param waitingFor what holds them: {@code "global-concurrency"} (waiting for a slot), {@code "rate-limit"}
	 * (waiting for a start to leave the window), or {@code null} when nothing is held back
	 */
	record QueueLimitStats(@Nullable Integer globalConcurrency, @Nullable Integer rateLimit,
			@Nullable Duration ratePeriod, long startsInWindow, long heldBack, @Nullable String waitingFor) {
	}

	/**
	 * One live application instance.
	 *
	 * @param id the session id
	 * @param name the instance's name: {@code spring.application.name} and the JVM's {@code pid@host}
	 * @param startedAt when the session started, on the database clock
	 * @param lastHeartbeat when it last proved alive, on the database clock
	 * @param heartbeatAge how long ago that was, on the database clock
	 * @param runningTasks how many tasks it has claimed
	 */
	record WorkerSessionInfo(UUID id, String name, Instant startedAt, Instant lastHeartbeat, Duration heartbeatAge,
			long runningTasks) {
	}

	/**
	 * How far a batch has got. While it is open, {@code completed} counts the tasks that are neither waiting,
	 * running nor dead (a cancelled task counts as completed); once it is finished, the counts are those its
	 * {@code then} task was given.
	 *
	 * @param id the batch's id
	 * @param total how many tasks it has
	 * @param completed how many completed
	 * @param dead how many are in the dead letters
	 * @param remaining how many wait or run
	 * @param createdAt when it was enqueued, on the database clock
	 * @param finishedAt when its {@code then} task was enqueued, or {@code null} while it is open
	 * @param thenTaskId the id of its {@code then} task
	 */
	record BatchProgress(UUID id, int total, long completed, long dead, long remaining, Instant createdAt,
			@Nullable Instant finishedAt, UUID thenTaskId) {

		/** Whether every task has completed or died and the {@code then} task was enqueued. */
		public boolean finished() {
			return this.finishedAt != null;
		}

	}

}
