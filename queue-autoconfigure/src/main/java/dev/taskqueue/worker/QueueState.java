package dev.taskqueue.worker;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.handler.TaskHandlerMethod;

/**
 * One queue as this instance runs it: its handler, its settings and how many of its tasks are in flight.
 */
final class QueueState {

	final TaskHandlerMethod handler;

	final QueueSettings settings;

	final AtomicInteger inFlight = new AtomicInteger();

	/** Permits to run a handler: a claimed task beyond them waits, prefetched, until one is free. */
	final Semaphore running;

	/** Whether the last claim took all it asked for, so more tasks are probably waiting. */
	volatile boolean mayHaveMore;

	QueueState(TaskHandlerMethod handler, QueueSettings settings) {
		this.handler = handler;
		this.settings = settings;
		this.running = new Semaphore(settings.concurrency());
	}

	String name() {
		return this.handler.queue();
	}

	/**
	 * How many more tasks to claim. Queues with batched completion claim up to twice their concurrency, so a
	 * handler that finishes finds its next task already here and claims come in larger batches; a transactional
	 * queue claims only what it can start at once, leaving the rest to other instances.
	 */
	int free() {
		int prefetch = this.handler.batchedCompletion() ? this.settings.concurrency() : 0;
		return this.settings.concurrency() + prefetch - this.inFlight.get();
	}

	String describe() {
		return name() + " (concurrency " + this.settings.concurrency() + ", max-attempts "
				+ this.settings.maxAttempts() + ", timeout " + this.settings.timeout()
				+ (this.handler.batchedCompletion() ? ", batched completion" : "") + ")";
	}

}
