package dev.taskqueue.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The tasks one call of {@link TaskQueueTester} ran, in the order they ran, and what became of them.
 */
public final class TaskRuns {

	private final List<TaskRun> runs;

	TaskRuns(List<TaskRun> runs) {
		this.runs = List.copyOf(runs);
	}

	/** Every task run, in the order they ran. */
	public List<TaskRun> all() {
		return this.runs;
	}

	/** How many tasks ran. */
	public int count() {
		return this.runs.size();
	}

	/** How many completed. */
	public int completed() {
		return count(TaskRun.Outcome.COMPLETED);
	}

	/** How many failed and wait for another attempt. */
	public int retried() {
		return count(TaskRun.Outcome.RETRIED);
	}

	/** How many went to the dead letters. */
	public int deadLettered() {
		return count(TaskRun.Outcome.DEAD_LETTERED);
	}

	/** The runs that did not complete. */
	public List<TaskRun> failures() {
		return this.runs.stream().filter((run) -> run.outcome() != TaskRun.Outcome.COMPLETED).toList();
	}

	/**
	 * Checks that every task run completed.
	 * @return these runs
	 * @throws AssertionError naming each task that did not, with the first failure as its cause
	 */
	public TaskRuns assertAllCompleted() {
		List<TaskRun> failures = failures();
		if (!failures.isEmpty()) {
			throw new AssertionError(failures.size() + " of " + count() + " tasks did not complete:\n  "
					+ failures.stream().map(TaskRun::toString).collect(Collectors.joining("\n  ")),
					failures.get(0).failure());
		}
		return this;
	}

	TaskRuns plus(TaskRuns more) {
		List<TaskRun> all = new ArrayList<>(this.runs);
		all.addAll(more.runs);
		return new TaskRuns(all);
	}

	private int count(TaskRun.Outcome outcome) {
		return (int) this.runs.stream().filter((run) -> run.outcome() == outcome).count();
	}

	@Override
	public String toString() {
		return count() + " tasks: " + completed() + " completed, " + retried() + " retried, " + deadLettered()
				+ " dead-lettered" + ((count(TaskRun.Outcome.CLAIM_LOST) > 0)
						? ", " + count(TaskRun.Outcome.CLAIM_LOST) + " lost their claims" : "");
	}

}
