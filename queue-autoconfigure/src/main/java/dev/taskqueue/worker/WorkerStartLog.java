package dev.taskqueue.worker;

import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.taskqueue.jdbc.TaskNotifications;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/** The lines a worker logs as it starts: what it runs, and a pool too small for its queues' concurrency. */
final class WorkerStartLog {

	private WorkerStartLog() {
	}

	static void log(Log logger, UUID session, List<QueueState> states, WorkerSettings settings,
			@Nullable TaskNotifications notifications) {
		logger.info("TaskQueue worker started as session " + session + ": queues "
				+ states.stream().map(QueueState::describe).collect(Collectors.joining(", ")) + "; poll-interval "
				+ settings.pollInterval() + ", heartbeat-interval " + settings.heartbeatInterval()
				+ ", session-timeout " + settings.sessionTimeout() + ", shutdown-timeout "
				+ settings.shutdownTimeout() + (settings.virtualThreads() ? ", virtual threads" : "")
				+ ((notifications != null) ? ", LISTEN on '" + notifications.channel() + "'"
						: ", polling only")
				+ ((settings.maxHandlers() < Integer.MAX_VALUE)
						? ", at most " + settings.maxHandlers() + " handlers at once (connection pool)" : ""));
		int wanted = states.stream().mapToInt((state) -> state.settings.concurrency()).sum();
		if (wanted > settings.maxHandlers()) {
			logger.warn("The queues' concurrency adds up to " + wanted + " but the connection pool leaves room for "
					+ settings.maxHandlers() + " handlers (the worker keeps one connection for its bookkeeping"
					+ ((notifications != null) ? " and one for LISTEN" : "") + "): TaskQueue runs at most "
					+ settings.maxHandlers() + " at once. Size "
					+ "the pool at least the sum of the queues' concurrency + 2, plus what the rest of the application "
					+ "uses");
		}
	}

}
