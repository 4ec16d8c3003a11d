package dev.taskqueue.internal.support;

import java.util.List;

import dev.taskqueue.DeadTask;
import dev.taskqueue.TaskRedactor;

/** Applies the application's {@link TaskRedactor} and {@code taskqueue.redaction.hide-payloads} where tasks are shown. */
public final class Redaction {

	private Redaction() {
	}

	/**
	 * The redactor to apply: {@code redactor}, with every payload hidden when {@code hidePayloads} (whatever the
	 * application's redactor does with them).
	 */
	public static TaskRedactor effective(TaskRedactor redactor, boolean hidePayloads) {
		if (!hidePayloads) {
			return redactor;
		}
		return new TaskRedactor() {

			@Override
			public String payload(String queue, String json) {
				return HIDDEN;
			}

			@Override
			public String error(String queue, String error) {
				return redactor.error(queue, error);
			}

		};
	}

	/** {@code task} with its payload and error as {@code redactor} shows them. */
	public static DeadTask apply(TaskRedactor redactor, DeadTask task) {
		if (redactor == TaskRedactor.NONE) {
			return task;
		}
		return new DeadTask(task.id(), task.queue(), task.priority(), task.attempts(), task.enqueuedAt(),
				task.failedAt(), redactor.payload(task.queue(), task.payload()),
				redactor.error(task.queue(), task.error()), attempts(redactor, task.queue(), task.attemptLog()),
				task.fairnessKey());
	}

	/** {@code attempts} of a task of {@code queue} with their errors as {@code redactor} shows them. */
	public static List<DeadTask.Attempt> attempts(TaskRedactor redactor, String queue,
			List<DeadTask.Attempt> attempts) {
		if (redactor == TaskRedactor.NONE) {
			return attempts;
		}
		return attempts.stream()
			.map((a) -> new DeadTask.Attempt(a.attempt(), a.startedAt(), a.endedAt(), a.instance(), a.outcome(),
					(a.error() != null) ? redactor.error(queue, a.error()) : null))
			.toList();
	}

}
