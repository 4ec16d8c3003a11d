package dev.taskqueue.internal.worker;

import java.time.Instant;
import java.util.UUID;

import dev.taskqueue.BatchInfo;
import dev.taskqueue.TaskContext;
import org.jspecify.annotations.Nullable;

/** The context the worker gives a handler: connected to the running task, so that it sees its cancellation. */
final class RunningTaskContext extends TaskContext {

	private final Cancellations cancellations;

	RunningTaskContext(UUID id, String queue, int attempt, Instant enqueuedAt, @Nullable Instant scheduledAt,
			@Nullable BatchInfo batch, Cancellations cancellations) {
		super(id, queue, attempt, enqueuedAt, scheduledAt, batch);
		this.cancellations = cancellations;
	}

	@Override
	public boolean isCancelled() {
		return this.cancellations.isCancelled(id());
	}

}
