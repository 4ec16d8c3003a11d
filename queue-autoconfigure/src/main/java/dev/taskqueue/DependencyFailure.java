package dev.taskqueue;

/**
 * What a task that {@link TaskRequest#withDependsOn(java.util.UUID...) depends on other tasks} does when one of them
 * is in the dead letters at the moment the last of the others is done.
 */
public enum DependencyFailure {

	/**
	 * Goes to the dead letters without running, with an error naming the dead prerequisite and its error. The
	 * default. Its own dependents then follow their policy in turn; {@code retryDead} runs it as an ordinary task.
	 */
	DEAD,

	/** Becomes due as if every prerequisite had completed. */
	RUN_ANYWAY

}
