package dev.taskqueue.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskQueueOperations.WorkerSessionInfo;
import dev.taskqueue.internal.handler.TaskHandlerRegistry;
import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.internal.worker.TaskWorker;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of TaskQueue in this instance: the database answers, and, where the worker runs, its session is still in
 * the database with a recent heartbeat. DOWN when the database cannot be reached, when the worker has stopped, when
 * another instance expired this session, or when three heartbeats in a row have not arrived (ages are measured on
 * the database clock, as every liveness decision of TaskQueue). The database is read with a timeout of its own
 * ({@code taskqueue.health.timeout}), and a failure is described by its type and SQLSTATE only, never its SQL.
 * Queues with waiting tasks that no live instance handles are named in a detail, {@code unhandledQueues}; task
 * tables with too many dead rows and a transaction that holds the xmin horizon too long, in a detail {@code bloat}
 * (docs/operations.md#bloat). Neither changes the status: restarting this instance would help neither.
 */
public class TaskQueueHealthIndicator extends AbstractHealthIndicator implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(TaskQueueHealthIndicator.class);

	private final TaskQueueOperations operations;

	private final @Nullable TaskWorker worker;

	private final TaskHandlerRegistry handlers;

	private final Duration maxHeartbeatAge;

	private final HealthCheckTimeout<Reading> reads;

	private final @Nullable BloatWatch bloat;

	/**
	 * @param operations reads the sessions
	 * @param worker the worker, or {@code null} when this instance has none
	 * @param handlers the handlers, to tell a worker with nothing to do from a stopped one
	 * @param heartbeatInterval how often the session beats
	 * @param sessionTimeout how long a silent session lives
	 * @param timeout how long a check waits for the database before it answers DOWN
	 */
	public TaskQueueHealthIndicator(TaskQueueOperations operations, @Nullable TaskWorker worker, TaskHandlerRegistry handlers,
			Duration heartbeatInterval, Duration sessionTimeout, Duration timeout) {
		this(operations, worker, handlers, heartbeatInterval, sessionTimeout, timeout, null);
	}

	/**
	 * An indicator that also warns of bloat, as {@code bloat} reports it ({@code null} on a database without VACUUM,
	 * or with {@code taskqueue.bloat.enabled=false}).
	 */
	public TaskQueueHealthIndicator(TaskQueueOperations operations, @Nullable TaskWorker worker,
			TaskHandlerRegistry handlers, Duration heartbeatInterval, Duration sessionTimeout, Duration timeout,
			@Nullable BloatWatch bloat) {
		super("TaskQueue health check failed");
		this.bloat = bloat;
		this.operations = operations;
		this.worker = worker;
		this.handlers = handlers;
		Duration threeBeats = heartbeatInterval.multipliedBy(3);
		this.maxHeartbeatAge = (threeBeats.compareTo(sessionTimeout) < 0) ? threeBeats : sessionTimeout;
		this.reads = new HealthCheckTimeout<>(timeout);
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Reading reading;
		try {
			reading = this.reads.get(this::read);
		}
		catch (TimeoutException ex) {
			builder.down().withDetail("error", "The database did not answer within " + this.reads.timeout());
			return;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt(); // the caller is shutting down: let it see why it stopped waiting
			builder.down().withDetail("error", "Interrupted while waiting for the database");
			return;
		}
		catch (Exception ex) {
			// The whole exception goes to the log (at DEBUG: the worker already logs the outage at WARN); the
			// details, often public, get its type and SQLSTATE only.
			logger.debug("TaskQueue health check failed", ex);
			builder.down().withDetail("error", HealthCheckTimeout.describe(ex));
			return;
		}
		List<WorkerSessionInfo> sessions = reading.sessions();
		builder.withDetail("liveSessions", sessions.size());
		if (!reading.unhandledQueues().isEmpty()) {
			// A detail, not DOWN: restarting this instance would not help, and the queue may be another
			// application's that is simply not running now.
			builder.withDetail("unhandledQueues", reading.unhandledQueues());
		}
		if (reading.bloat() != null) {
			// A detail, not DOWN: every instance reads the same database and would restart together, and the
			// holder of the horizon is another session; the detail names it.
			builder.withDetail("bloat", reading.bloat());
		}
		if (this.worker == null) {
			builder.up().withDetail("worker", "disabled");
			return;
		}
		if (!this.worker.isRunning()) {
			if (this.handlers.all().isEmpty()) {
				builder.up().withDetail("worker", "not started: no @TaskHandler methods");
			}
			else {
				builder.down().withDetail("worker", "stopped");
			}
			return;
		}
		UUID id = this.worker.sessionId();
		builder.withDetail("worker", "running").withDetail("session", id);
		Optional<WorkerSessionInfo> session = sessions.stream().filter((info) -> info.id().equals(id)).findFirst();
		if (session.isEmpty()) {
			builder.down()
				.withDetail("error", "The session is no longer in the database: another instance expired it "
						+ "after it missed its heartbeats; its tasks were released");
			return;
		}
		Duration age = session.get().heartbeatAge();
		builder.withDetail("lastHeartbeat", session.get().lastHeartbeat()).withDetail("heartbeatAge", age.toString());
		if (age.compareTo(this.maxHeartbeatAge) > 0) {
			builder.down()
				.withDetail("error", "No heartbeat for " + age + " (more than " + this.maxHeartbeatAge
						+ "): heartbeats are failing and other instances will release this instance's tasks");
		}
		else {
			builder.up();
		}
	}

	private Reading read() {
		List<String> unhandled = this.operations.queueStats()
			.stream()
			.filter(QueueStats::unhandled)
			.map(QueueStats::queue)
			.toList();
		return new Reading(this.operations.sessions(), unhandled, bloat());
	}

	/** The detail {@code bloat}: its warnings with the tables and holder they are about; {@code null} when none. */
	private @Nullable Map<String, Object> bloat() {
		if (this.bloat == null) {
			return null;
		}
		BloatWatch.Report report;
		try {
			report = this.bloat.current();
		}
		catch (RuntimeException ex) {
			// Not DOWN: the figures are a warning's, and the checks above read the same database.
			logger.debug("TaskQueue health check could not read the bloat figures", ex);
			return Map.of("error", HealthCheckTimeout.describe(ex));
		}
		if (report.warnings().isEmpty()) {
			return null;
		}
		Map<String, Object> detail = new LinkedHashMap<>();
		detail.put("warnings", report.warnings());
		if (!report.tablesOverThreshold().isEmpty()) {
			detail.put("tables", report.tablesOverThreshold());
		}
		if (report.horizon() != null && report.horizon().overThreshold()) {
			detail.put("horizon", report.horizon());
		}
		return detail;
	}

	/** What one check reads from the database, within the timeout. */
	private record Reading(List<WorkerSessionInfo> sessions, List<String> unhandledQueues,
			@Nullable Map<String, Object> bloat) {
	}

	@Override
	public void close() {
		this.reads.close();
	}

}
