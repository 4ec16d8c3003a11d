package dev.taskqueue.sample;

import dev.taskqueue.BatchInfo;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Runs once a demo batch is done ({@code POST /batches}), and for every {@code demo-finished} topic published.
 */
@Component
public class DemoReportHandler {

	static final String QUEUE = "demo-report";

	private static final Logger logger = LoggerFactory.getLogger(DemoReportHandler.class);

	@TaskHandler(queue = QUEUE, topics = "demo-finished")
	public void report(String what, TaskContext context) {
		BatchInfo batch = context.batch();
		if (batch != null) {
			logger.info("Report on {} {}: {} of {} tasks completed, {} dead", what, batch.id(), batch.completed(),
					batch.total(), batch.dead());
		}
		else {
			logger.info("Report on {}", what);
		}
	}

}
