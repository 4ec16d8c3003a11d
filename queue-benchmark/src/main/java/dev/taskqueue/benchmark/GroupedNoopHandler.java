package dev.taskqueue.benchmark;

import dev.taskqueue.TaskHandler;

/**
 * A handler that does nothing but count, in the transactional mode with group commit: several tasks commit in one
 * transaction, each in a savepoint.
 */
class GroupedNoopHandler {

	static final String QUEUE = "bench-grouped";

	/** The group size the benchmark gives this queue unless {@code taskqueue.*} properties set one. */
	static final int DEFAULT_GROUP_SIZE = 20;

	private final Probe probe;

	GroupedNoopHandler(Probe probe) {
		this.probe = probe;
	}

	@TaskHandler(queue = QUEUE)
	void handle(BenchTask task) {
		this.probe.handlerStarted(task);
	}

}
