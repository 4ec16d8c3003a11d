package dev.taskqueue.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.WorkerSessionInfo;
import dev.taskqueue.handler.TaskHandlerRegistry;
import dev.taskqueue.worker.TaskWorker;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of TaskQueue in this instance: the database answers, and, where the worker runs, its session is still in
 * the database with a recent heartbeat. DOWN when the database cannot be reached, when the worker has stopped, when
 * another instance expired this session, or when three heartbeats in a row have not arrived (ages are measured on
 * the database clock, as every liveness decision of TaskQueue).
 */
class TaskQueueHealthIndicator extends AbstractHealthIndicator {

	private final TaskQueueOperations operations;

	private final @Nullable TaskWorker worker;

	private final TaskHandlerRegistry handlers;

	private final Duration maxHeartbeatAge;

	/**
	 * @param operations reads the sessions
	 * @param worker the worker, or {@code null} when this instance has none
	 * @param handlers the handlers, to tell a worker with nothing to do from a stopped one
	 * @param heartbeatInterval how often the session beats
	 * @param sessionTimeout how long a silent session lives
	 */
	TaskQueueHealthIndicator(TaskQueueOperations operations, @Nullable TaskWorker worker, TaskHandlerRegistry handlers,
			Duration heartbeatInterval, Duration sessionTimeout) {
		super("TaskQueue health check failed");
		this.operations = operations;
		this.worker = worker;
		this.handlers = handlers;
		Duration threeBeats = heartbeatInterval.multipliedBy(3);
		this.maxHeartbeatAge = (threeBeats.compareTo(sessionTimeout) < 0) ? threeBeats : sessionTimeout;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		List<WorkerSessionInfo> sessions = this.operations.sessions();
		builder.withDetail("liveSessions", sessions.size());
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

}
