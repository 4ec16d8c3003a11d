package dev.taskqueue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method of a Spring bean as the handler of one queue.
 * <p>
 * The method takes {@code (P payload)} or {@code (P payload, TaskContext context)}; the task's JSON payload is
 * read as {@code P} with the application's Jackson mapper. It runs inside a transaction that also completes the
 * task, so its database work commits exactly once. Throw {@link NonRetryableTaskException} to skip the retries.
 * <p>
 * Settings made under {@code taskqueue.queues.<name>} take precedence over the attributes here, so operators can
 * tune a queue without a new build.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TaskHandler {

	/**
	 * The queue this method handles: 1 to 100 letters, digits, {@code .}, {@code _}, {@code -} or {@code :}.
	 * {@code ${...}} placeholders are resolved against the environment.
	 */
	String queue();

	/**
	 * How many tasks of this queue may run at once in this instance; 0 means {@code taskqueue.worker.concurrency}.
	 */
	int concurrency() default 0;

	/**
	 * How many times a task is tried, the first run included, before it goes to the dead letters; 0 means
	 * {@code taskqueue.retry.max-attempts}.
	 */
	int maxAttempts() default 0;

	/**
	 * The name of a {@link RetryPolicy} bean that decides this queue's retries; empty for the default, the bean named
	 * {@code taskQueueRetryPolicy} (exponential backoff from {@code taskqueue.retry.backoff.*} unless the application
	 * declares a bean of that name).
	 */
	String retryPolicy() default "";

	/**
	 * The topics this queue subscribes to: each {@link TaskQueue#publish publish} to one of them enqueues a task on
	 * this queue. Stored in the database when the application starts; a topic dropped here is unsubscribed then.
	 * Same rules as queue names; {@code ${...}} placeholders are resolved.
	 */
	String[] topics() default {};

	/**
	 * How a task's completion is recorded: in the handler's transaction (the default, exactly-once database
	 * effects), or batched with other tasks' completions after the handler returns (faster; at-least-once).
	 */
	Completion completion() default Completion.TRANSACTIONAL;

	/**
	 * How a task's completion is recorded.
	 */
	enum Completion {

		/**
		 * The handler runs in a transaction that also deletes the task, so its database work commits exactly once.
		 * With {@code taskqueue.queues.<name>.group-commit-size} above 1, several tasks share one transaction, each
		 * handler in a savepoint of its own, and commit together. When the database rolls that transaction back as
		 * a serialization failure (SQLSTATE 40001, routine on CockroachDB) or a deadlock, the whole transaction runs
		 * again and so does the handler, without counting an attempt ({@code taskqueue.serialization-retry.*}).
		 */
		TRANSACTIONAL,

		/**
		 * The handler runs without a transaction of TaskQueue's; completions of many tasks are deleted together,
		 * by one statement, shortly after their handlers return. Much faster for handlers whose work is outside
		 * the database or idempotent: a crash between the handler and the flush runs the task again.
		 */
		BATCHED

	}

}
