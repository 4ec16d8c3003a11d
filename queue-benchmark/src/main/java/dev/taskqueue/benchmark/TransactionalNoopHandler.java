package dev.taskqueue.benchmark;

import dev.taskqueue.TaskHandler;

/**
 * A handler that does nothing but count, in the default mode: its completion commits in its own transaction.
 */
class TransactionalNoopHandler {

	static final String QUEUE = "bench-transactional";

	private final Probe probe;

	TransactionalNoopHandler(Probe probe) {
		this.probe = probe;
	}

	@TaskHandler(queue = QUEUE)
	void handle(BenchTask task) {
		this.probe.handlerStarted(task);
	}

}
