package dev.taskqueue.internal.worker;

import java.util.List;

import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.internal.handler.TaskHandlerMethod;

/** Queues made as the worker makes them, for tests of one stage that run no task. */
final class TestQueues {

	private TestQueues() {
	}

	/** {@code handler}'s queue with {@code settings} and the completion mode the worker would choose for it. */
	static QueueState queue(TaskHandlerMethod handler, QueueSettings settings, int maxPrefetch) {
		TaskQueueListener none = new TaskQueueListener() {
		};
		// Nothing here runs a task: the modes never reach the repository, transactions or payload reader.
		CompletionModes modes = new CompletionModes(null, null, null, null, none, List.of());
		return new QueueState(new QueueState.Spec(handler, settings, modes.of(handler, settings,
				modes.completer((queue) -> null, (queue) -> false, (queue, tasks) -> {
				}))), maxPrefetch);
	}

}
