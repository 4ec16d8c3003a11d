package dev.taskqueue.sample;

import java.util.concurrent.ThreadLocalRandom;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Handles demo tasks: works for a moment and fails one time in ten, so that retries show in the log. A task
 * enqueued with {@code fail=true} fails with {@link NonRetryableTaskException}: it is not retried and goes straight
 * to the dead letters, where {@code /actuator/taskqueue/demo/dead} lists it.
 */
@Component
public class DemoTaskHandler {

	private static final Logger logger = LoggerFactory.getLogger(DemoTaskHandler.class);

	@TaskHandler(queue = "demo")
	public void handle(DemoTask task, TaskContext context) throws InterruptedException {
		if (task.fail()) {
			throw new NonRetryableTaskException(
					"Demo task " + task.number() + " of " + task.of() + " was enqueued with fail=true");
		}
		Thread.sleep(ThreadLocalRandom.current().nextLong(50, 250));
		if (ThreadLocalRandom.current().nextInt(10) == 0) {
			throw new IllegalStateException("Demo task " + task.number() + " failed on purpose");
		}
		logger.info("Demo task {} of {} done (attempt {})", task.number(), task.of(), context.attempt());
	}

}
