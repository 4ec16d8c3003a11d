package dev.taskqueue.internal.operations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.function.ToIntBiFunction;
import java.util.function.ToLongFunction;

import javax.sql.DataSource;

import dev.taskqueue.DeadTask;
import dev.taskqueue.DeadTaskPage;
import dev.taskqueue.QueueName;
import dev.taskqueue.ScheduleInfo;
import dev.taskqueue.TaskProgress;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.DeadTaskRepository;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.QueueRepository;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.schedule.ScheduleControl;
import dev.taskqueue.internal.support.PostgresText;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The {@link TaskQueueOperations} on the application's database. Changes join the caller's transaction, or run in
 * one of their own; queue statistics always get a transaction, which their statement needs.
 * <p>
 * Every change is written to the audit log, whoever calls it: the one place, so that the dashboard, the actuator
 * endpoint and the application's own code are all recorded. The entry commits with the change, or, for the changes
 * made in chunks (each its own transaction) and the schedules' (made in the scheduler's transactions), is written
 * once they are done. Who acts is what the caller bound with {@link ActingAs}, else the application (AuditLog).
 */
class DefaultTaskQueueOperations implements TaskQueueOperations {

	private static final int CANCEL_BATCH = 10_000;

	/** The longest name of who asked for a cancel. */
	private static final int MAX_REQUESTED_BY = 200;

	/** Results read per statement by batchResults. */
	private static final int RESULT_PAGE = 500;

	private static final Log logger = LogFactory.getLog(DefaultTaskQueueOperations.class);

	private final QueueRepository queues;

	private final DeadTaskRepository deadTasks;

	private final QueueStatsRepository stats;

	private final TransactionOperations transactions;

	private final int countLimit;

	private final Supplier<Set<String>> handledQueues;

	private final BiConsumer<String, Boolean> pauseChanged;

	private final QueueLimitStatsReader limits;

	private final @Nullable ScheduleControl schedules;

	private final BatchRepository batches;

	private final AuditLog audit;

	private final ProgressQueries progress;

	private final ResultRepository results;

	/** Reads results as the worker wrote them: with the application's mapper. */
	private final JsonMapper mapper;

	/**
	 * @param queues paused queues and waiting tasks
	 * @param deadTasks dead letters
	 * @param transactions transactions on the TaskQueue data source, joining the caller's
	 * @param countLimit the count at which the statistics stop counting
	 * @param handledQueues the queues this instance has handlers for, listed even when empty
	 * @param pauseChanged told of each pause ({@code true}) or resume made here, once it has committed, so that
	 * this instance's worker applies it at once rather than at its next heartbeat
	 * @param rateWindowStarts how many tasks of a queue with limits count against its rate limit now (the worker's
	 * {@code TaskWorker.Builder.rateWindowStarts}), {@code null} for none
	 * @param limits the limits of each queue that has some, by queue name: what they hold back is added to the
	 * statistics
	 * @param schedules what lists, pauses, resumes and triggers recurring schedules, {@code null} for none
	 * @param batches the progress of task batches
	 * @param dataSource with {@code tables}: where the queue statistics and sessions are read and the audit log
	 * records every change
	 * @param tables the task tables
	 * @param progress the progress of running tasks
	 * @param results the results of completed tasks
	 * @param mapper reads results, as the worker wrote them
	 */
	DefaultTaskQueueOperations(QueueRepository queues, DeadTaskRepository deadTasks,
			TransactionOperations transactions, int countLimit, Supplier<Set<String>> handledQueues,
			BiConsumer<String, Boolean> pauseChanged, @Nullable ToIntBiFunction<String, QueueLimits> rateWindowStarts,
			Map<String, QueueLimits> limits, @Nullable ScheduleControl schedules, BatchRepository batches,
			DataSource dataSource, TaskTables tables, ProgressQueries progress, ResultRepository results,
			JsonMapper mapper) {
		this.audit = new AuditLog(new AuditRepository(dataSource, tables));
		this.progress = progress;
		this.results = results;
		this.mapper = mapper;
		this.limits = new QueueLimitStatsReader(rateWindowStarts, limits);
		this.schedules = schedules;
		this.batches = batches;
		this.queues = queues;
		this.deadTasks = deadTasks;
		this.stats = new QueueStatsRepository(dataSource, tables);
		this.transactions = transactions;
		this.countLimit = countLimit;
		this.handledQueues = handledQueues;
		this.pauseChanged = pauseChanged;
	}

	@Override
	public Optional<BatchProgress> batch(UUID id) {
		if (id == null) {
			throw new IllegalArgumentException("id must not be null");
		}
		return this.batches.progress(id);
	}

	/** Runs a change of one transaction and its audit entry in that transaction (the caller's, or its own). */
	private <T> T audited(String action, String target, Supplier<T> change, ToLongFunction<T> rows) {
		T result = this.transactions.execute((status) -> {
			T done = change.get();
			this.audit.record(action, target, rows.applyAsLong(done));
			return done;
		});
		if (result == null) {
			throw new IllegalStateException("The transaction of " + action + " returned nothing");
		}
		return result;
	}

	private static long one(boolean changed) {
		return changed ? 1 : 0;
	}

	@Override
	public Optional<TaskProgress> progress(UUID id) {
		if (id == null) {
			throw new IllegalArgumentException("id must not be null");
		}
		return this.progress.read(id)
			.map((stored) -> new TaskProgress(stored.percent(), stored.message(), stored.updatedAt()));
	}

	@Override
	public <T> Optional<T> result(UUID id, Class<T> type) {
		if (id == null || type == null) {
			throw new IllegalArgumentException("id and type must not be null");
		}
		return this.results.read(id).map((kept) -> readResult(id, kept.json(), type));
	}

	@Override
	public <T> int batchResults(UUID batchId, Class<T> type, BiConsumer<UUID, ? super T> each) {
		if (batchId == null || type == null || each == null) {
			throw new IllegalArgumentException("batchId, type and each must not be null");
		}
		int given = 0;
		@Nullable UUID after = null;
		List<ResultRepository.Kept> page;
		do {
			page = this.results.readBatch(batchId, after, RESULT_PAGE);
			for (ResultRepository.Kept kept : page) {
				each.accept(kept.id(), readResult(kept.id(), kept.json(), type));
				after = kept.id();
				given++;
			}
		}
		while (page.size() == RESULT_PAGE);
		return given;
	}

	private <T> T readResult(UUID id, String json, Class<T> type) {
		try {
			return this.mapper.readValue(json, type);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("The result of task " + id + " cannot be read as " + type.getName()
					+ ": " + ex.getMessage(), ex);
		}
	}

	@Override
	public void pause(String queue) {
		String name = QueueName.requireValid(queue, "queue");
		audited("pause", "queue " + name, () -> {
			setPaused(name, true);
			return Boolean.TRUE;
		}, (done) -> 1);
	}

	@Override
	public void resume(String queue) {
		String name = QueueName.requireValid(queue, "queue");
		audited("resume", "queue " + name, () -> {
			setPaused(name, false);
			return Boolean.TRUE;
		}, (done) -> 1);
	}

	private void setPaused(String queue, boolean paused) {
		this.queues.setPaused(queue, paused);
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					DefaultTaskQueueOperations.this.pauseChanged.accept(queue, paused);
				}

			});
		}
		else {
			this.pauseChanged.accept(queue, paused);
		}
	}

	@Override
	public boolean isPaused(String queue) {
		return this.queues.isPaused(queue);
	}

	@Override
	public Set<String> pausedQueues() {
		return this.queues.paused();
	}

	@Override
	public DeadTaskPage deadTasks(@Nullable String queue, int limit, @Nullable String cursor) {
		if (queue != null) {
			QueueName.requireValid(queue, "queue");
		}
		if (limit < 1 || limit > DeadTaskPage.MAX_LIMIT) {
			throw new IllegalArgumentException(
					"limit must be from 1 to " + DeadTaskPage.MAX_LIMIT + " but was " + limit);
		}
		DeadTaskCursor after = DeadTaskCursor.parse(cursor);
		// One more than asked tells whether a next page exists, so the last page never points at an empty one.
		List<DeadTask> found = this.deadTasks.page(queue, (after != null) ? after.failedAt() : null,
				(after != null) ? after.id() : null, limit + 1);
		if (found.size() <= limit) {
			return new DeadTaskPage(found, null);
		}
		List<DeadTask> page = found.subList(0, limit);
		return new DeadTaskPage(page, DeadTaskCursor.after(page.get(limit - 1)).toString());
	}

	@Override
	public Optional<DeadTask> deadTask(UUID id) {
		return this.deadTasks.find(requireId(id));
	}

	@Override
	public List<DeadTask.Attempt> attempts(UUID id) {
		return this.deadTasks.attempts(requireId(id));
	}

	@Override
	public boolean retryDead(UUID id) {
		UUID task = requireId(id);
		return audited("retry-dead", "task " + task, () -> this.deadTasks.retry(task), DefaultTaskQueueOperations::one);
	}

	@Override
	public int retryAllDead(String queue) {
		String name = QueueName.requireValid(queue, "queue");
		return audited("retry-dead", "queue " + name, () -> this.deadTasks.retryAll(name), Integer::longValue);
	}

	@Override
	public int retryDead(TaskFilter filter) {
		int retried = this.deadTasks.retryMatching(filter.queue(), filter.errorContains(), filter.from(),
				filter.before(), BULK_CHUNK);
		logger.info(String.format("Retried %,d dead tasks (%s)%s", retried, filter,
				(retried > 0) ? ": they are back in their queues" : ""));
		this.audit.record("retry-dead", filter.toString(), retried);
		return retried;
	}

	@Override
	public int deleteDead(TaskFilter filter) {
		requireCondition(filter, "dead letter", "deleteAllDead(queue)");
		int deleted = this.deadTasks.deleteMatching(filter.queue(), filter.errorContains(), filter.from(),
				filter.before(), BULK_CHUNK);
		logger.info(String.format("Deleted %,d dead tasks (%s)", deleted, filter));
		this.audit.record("delete-dead", filter.toString(), deleted);
		return deleted;
	}

	@Override
	public int retryWaiting(TaskFilter filter) {
		return waitingInBulk(filter, true);
	}

	@Override
	public int deleteWaiting(TaskFilter filter) {
		requireCondition(filter, "waiting task", "cancelAll(queue)");
		return waitingInBulk(filter, false);
	}

	/** Refuses a bulk delete whose filter has no condition: it would delete every {@code what} of every queue. */
	private static void requireCondition(TaskFilter filter, String what, String instead) {
		if (filter.isEmpty()) {
			throw new IllegalArgumentException("A filter without a condition would delete every " + what
					+ " of every queue: give a queue, an error text or a time (" + instead + " deletes a queue's)");
		}
	}

	/** Makes due ({@code retry}) or deletes the waiting tasks that match, logs and audits how many. */
	private int waitingInBulk(TaskFilter filter, boolean retry) {
		QueueRepository.Bulk done = retry
				? this.queues.retryWaiting(filter.queue(), filter.errorContains(), filter.from(), filter.before(),
						BULK_CHUNK)
				: this.queues.deleteWaiting(filter.queue(), filter.errorContains(), filter.from(), filter.before(),
						BULK_CHUNK);
		logger.info(String.format("%s %,d waiting tasks%s (%s)%s", retry ? "Made" : "Deleted", done.taken(),
				retry ? " due now" : "", filter, skipped(done)));
		this.audit.record(retry ? "retry-waiting" : "delete-waiting", filter.toString(), done.taken());
		return done.taken();
	}

	private static String skipped(QueueRepository.Bulk done) {
		return (done.runningSkipped() > 0)
				? String.format("; %,d running tasks that match were left alone", done.runningSkipped()) : "";
	}

	@Override
	public boolean deleteDead(UUID id) {
		UUID task = requireId(id);
		return audited("delete-dead", "task " + task, () -> this.deadTasks.delete(task),
				DefaultTaskQueueOperations::one);
	}

	@Override
	public int deleteAllDead(String queue) {
		String name = QueueName.requireValid(queue, "queue");
		return audited("delete-dead", "queue " + name, () -> this.deadTasks.deleteAll(name), Integer::longValue);
	}

	@Override
	public boolean cancel(UUID id) {
		return cancel(id, null);
	}

	@Override
	public boolean cancel(UUID id, @Nullable String requestedBy) {
		requireId(id);
		if (requestedBy != null) {
			String unstorable = PostgresText.problem(requestedBy);
			if (requestedBy.isBlank()) {
				throw new IllegalArgumentException("requestedBy is blank");
			}
			if (requestedBy.length() > MAX_REQUESTED_BY) {
				throw new IllegalArgumentException("requestedBy is longer than " + MAX_REQUESTED_BY + " characters");
			}
			if (unstorable != null) {
				throw new IllegalArgumentException("requestedBy contains " + unstorable);
			}
		}
		boolean cancelled = audited("cancel", "task " + id, () -> this.queues.cancel(id, requestedBy),
				DefaultTaskQueueOperations::one);
		if (cancelled) {
			logger.info("Cancelled task " + id + ((requestedBy != null) ? " as " + requestedBy + " asked" : "")
					+ "; if it was running, its instance interrupts its handler and rolls its work back");
		}
		return cancelled;
	}

	@Override
	public int cancelAll(String queue) {
		QueueName.requireValid(queue, "queue");
		int total = 0;
		int deleted;
		// A short batch means the queue has no more waiting tasks, or only ones being claimed at this moment.
		do {
			deleted = this.queues.cancelWaiting(queue, CANCEL_BATCH);
			total += deleted;
		}
		while (deleted == CANCEL_BATCH);
		this.audit.record("cancel-waiting", "queue " + queue, total);
		return total;
	}

	@Override
	public QueueStats queueStats(String queue) {
		QueueName.requireValid(queue, "queue");
		Set<String> handled = new HashSet<>();
		QueueStats found = this.transactions.execute((status) -> {
			handled.addAll(this.stats.handledQueues());
			return this.stats.stats(queue, this.countLimit);
		});
		QueueStats stats = (found != null) ? found.withUnhandled(found.hasWaitingTasks() && !handled.contains(queue))
				: new QueueStats(queue, 0, 0, 0, 0, Duration.ZERO, false);
		return this.limits.withLimits(List.of(stats)).get(0);
	}

	@Override
	public List<QueueStats> queueStats() {
		Set<String> handled = new HashSet<>();
		List<QueueStats> found = this.transactions.execute((status) -> {
			handled.addAll(this.stats.handledQueues());
			return this.stats.stats(this.countLimit).stream()
				.map((stats) -> stats.withUnhandled(stats.hasWaitingTasks() && !handled.contains(stats.queue())))
				.toList();
		});
		List<QueueStats> all = new ArrayList<>(found);
		Set<String> listed = new HashSet<>(this.handledQueues.get());
		listed.addAll(this.limits.queues());
		for (String queue : listed) {
			if (found.stream().noneMatch((stats) -> stats.queue().equals(queue))) {
				all.add(new QueueStats(queue, 0, 0, 0, 0, Duration.ZERO, false));
			}
		}
		all.sort(Comparator.comparing(QueueStats::queue));
		return this.limits.withLimits(List.copyOf(all));
	}

	@Override
	public List<WorkerSessionInfo> sessions() {
		return this.stats.sessions();
	}

	private static UUID requireId(UUID id) {
		if (id == null) {
			throw new IllegalArgumentException("id must not be null");
		}
		return id;
	}

	@Override
	public List<ScheduleInfo> schedules() {
		return scheduleControl().list();
	}

	@Override
	public boolean pauseSchedule(String name) {
		boolean paused = scheduleControl().pause(name);
		this.audit.record("pause-schedule", "schedule " + name, one(paused));
		return paused;
	}

	@Override
	public boolean resumeSchedule(String name) {
		boolean resumed = scheduleControl().resume(name);
		this.audit.record("resume-schedule", "schedule " + name, one(resumed));
		return resumed;
	}

	@Override
	public Optional<UUID> triggerSchedule(String name) {
		Optional<UUID> task = scheduleControl().trigger(name);
		this.audit.record("trigger-schedule", "schedule " + name, one(task.isPresent()));
		return task;
	}

	private ScheduleControl scheduleControl() {
		if (this.schedules == null) {
			throw new UnsupportedOperationException("Recurring schedules are not configured");
		}
		return this.schedules;
	}

}
