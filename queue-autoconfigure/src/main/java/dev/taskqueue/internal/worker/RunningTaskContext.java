package dev.taskqueue.internal.worker;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskProgress;
import dev.taskqueue.internal.support.PostgresText;
import dev.taskqueue.internal.support.ScheduledAtHeader;
import org.jspecify.annotations.Nullable;

/**
 * The context the worker gives a handler: connected to the running attempt, it sees the task's cancellation, and
 * gives the progress the handler reports to the {@link ProgressWriter}, until the attempt ends.
 */
final class RunningTaskContext extends TaskContext {

	private final Cancellations cancellations;

	/** Writes the progress reported; {@code null} outside a worker (tasks run by {@code TaskRunner}). */
	private final @Nullable ProgressWriter writer;

	private volatile boolean reported;

	private volatile boolean ended;

	RunningTaskContext(ClaimedTask task, Cancellations cancellations, @Nullable ProgressWriter writer) {
		super(task.id(), task.queue(), task.attempt(), task.enqueuedAt(), ScheduledAtHeader.read(task.headers()),
				BatchHeaders.batch(task.headers()));
		this.cancellations = cancellations;
		this.writer = writer;
	}

	@Override
	public boolean isCancelled() {
		return this.cancellations.isCancelled(id());
	}

	@Override
	public void progress(int percent, @Nullable String message) {
		super.progress(percent, message);
		ProgressWriter writer = this.writer;
		if (writer == null || this.ended) {
			return; // no worker writes it, or a handler kept its context past its attempt (a thread of its own, say)
		}
		TaskProgress progress = progress();
		String text = (progress != null) ? progress.message() : null;
		this.reported = true;
		writer.report(new ProgressRepository.Report(id(), attempt(), percent,
				(text != null) ? PostgresText.storable(text) : null));
	}

	/**
	 * The attempt ended, whatever its outcome (completed, failed, timed out, lost or cancelled): its progress is
	 * deleted, and later reports are ignored.
	 */
	void ended() {
		this.ended = true;
		ProgressWriter writer = this.writer;
		if (this.reported && writer != null) {
			writer.ended(id());
		}
	}

}
