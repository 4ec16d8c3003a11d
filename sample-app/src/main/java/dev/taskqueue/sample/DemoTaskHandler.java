package dev.taskqueue.sample;

import java.util.concurrent.ThreadLocalRandom;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Handles demo tasks: works for a moment and fails one time in ten, so that retries show in the log.
 */
@Component
public class DemoTaskHandler {

	private static final Logger logger = LoggerFactory.getLogger(DemoTaskHandler.class);

	@TaskHandler(queue = "demo")
	public void handle(DemoTask task, TaskContext context) throws InterruptedException {
		Thread.sleep(ThreadLocalRandom.current().nextLong(50, 250));
		if (ThreadLocalRandom.current().nextInt(10) == 0) {
			throw new IllegalStateException("Demo task " + task.number() + " failed on purpose");
		}
		logger.info("Demo task {} of {} done (attempt {})", task.number(), task.of(), context.attempt());
	}

}
