package dev.taskqueue.internal.worker;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Names the worker's threads {@code tq-<role>-<n>}, short enough to show whole in Spring Boot's log pattern.
 */
final class Threads {

	private Threads() {
	}

	/**
	 * @param prefix the name before the number
	 * @param daemon whether the threads may not keep the JVM alive; handler threads are daemons, so a handler
	 * stuck past its timeout does not keep the JVM from exiting
	 */
	static ThreadFactory named(String prefix, boolean daemon) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
			thread.setDaemon(daemon);
			return thread;
		};
	}

}
