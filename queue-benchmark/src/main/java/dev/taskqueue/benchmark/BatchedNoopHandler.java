package dev.taskqueue.benchmark;

import dev.taskqueue.TaskHandler;

/**
 * A handler that does nothing but count, in the batched mode: completions are deleted together after it returns.
 */
class BatchedNoopHandler {

	static final String QUEUE = "bench-batched";

	private final Probe probe;

	BatchedNoopHandler(Probe probe) {
		this.probe = probe;
	}

	@TaskHandler(queue = QUEUE, completion = TaskHandler.Completion.BATCHED)
	void handle(BenchTask task) {
		this.probe.handlerStarted(task);
	}

}
