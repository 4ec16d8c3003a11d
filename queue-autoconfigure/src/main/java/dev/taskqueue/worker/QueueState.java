package dev.taskqueue.worker;

import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.handler.TaskHandlerMethod;

/**
 * One queue as this instance runs it: its handler, its settings and how many of its tasks are in flight.
 */
final class QueueState {

	final TaskHandlerMethod handler;

	final QueueSettings settings;

	final AtomicInteger inFlight = new AtomicInteger();

	/** Whether the last claim took all it asked for, so more tasks are probably waiting. */
	volatile boolean mayHaveMore;

	QueueState(TaskHandlerMethod handler, QueueSettings settings) {
		this.handler = handler;
		this.settings = settings;
	}

	String name() {
		return this.handler.queue();
	}

	int free() {
		return this.settings.concurrency() - this.inFlight.get();
	}

	String describe() {
		return name() + " (concurrency " + this.settings.concurrency() + ", max-attempts "
				+ this.settings.maxAttempts() + ", timeout " + this.settings.timeout()
				+ (this.handler.batchedCompletion() ? ", batched completion" : "") + ")";
	}

}
