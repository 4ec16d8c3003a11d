package dev.taskqueue.internal.worker;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskProgress;
import dev.taskqueue.internal.jdbc.ClaimedTask;
import dev.taskqueue.internal.jdbc.ProgressRepository;
import dev.taskqueue.internal.support.PostgresText;
import dev.taskqueue.internal.support.ScheduledAtHeader;
import org.jspecify.annotations.Nullable;

/**
 * The context a worker hands a handler: connected to the running attempt, it gives the progress the handler reports
 * to the {@link ProgressWriter}, until the attempt ends.
 */
final class RunningTaskContext extends TaskContext {

	private final ProgressWriter writer;

	private volatile boolean reported;

	private volatile boolean ended;

	RunningTaskContext(ClaimedTask task, ProgressWriter writer) {
		super(task.id(), task.queue(), task.attempt(), task.enqueuedAt(), ScheduledAtHeader.read(task.headers()),
				BatchHeaders.batch(task.headers()));
		this.writer = writer;
	}

	@Override
	public void progress(int percent, @Nullable String message) {
		super.progress(percent, message);
		if (this.ended) {
			return; // a handler that kept its context past its attempt (a thread of its own, say): nothing to show
		}
		TaskProgress progress = progress();
		String text = (progress != null) ? progress.message() : null;
		this.reported = true;
		this.writer.report(new ProgressRepository.Report(id(), attempt(), percent,
				(text != null) ? PostgresText.storable(text) : null));
	}

	/** The attempt ended, whatever its outcome: its progress is deleted, and later reports are ignored. */
	void ended() {
		this.ended = true;
		if (this.reported) {
			this.writer.ended(id());
		}
	}

}
