package dev.taskqueue.internal.worker;

import dev.taskqueue.internal.handler.TaskHandlerMethod;

/**
 * One queue as this instance runs it, fixed when the worker starts: its handler, its settings and how its tasks
 * complete. What changes while the queue runs is each stage's own: the claim loop's positions and the handler
 * threads' waiting tasks ({@link QueueState}).
 *
 * @param handler the queue's handler
 * @param settings the queue's settings
 * @param mode how the queue's tasks complete
 */
record QueueSpec(TaskHandlerMethod handler, QueueSettings settings, CompletionMode mode) {

	String name() {
		return this.handler.queue();
	}

	String describe() {
		return name() + " (concurrency " + this.settings.concurrency() + ", max-attempts "
				+ this.settings.maxAttempts() + ", timeout " + this.settings.timeout() + this.mode.describe()
				+ (this.settings.limits().any() ? ", " + this.settings.limits().describe() : "")
				+ ((this.settings.buckets() > 1) ? ", " + this.settings.buckets() + " buckets" : "") + ")";
	}

}
