package dev.taskqueue.sample;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.TaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Logs how many signups were welcomed, every night at 02:00 Paris time: one task per night however many instances
 * run. {@code GET /actuator/taskqueue/schedules/*} lists it; {@code POST
 * /actuator/taskqueue/schedules/nightly-report/trigger} runs it now.
 */
@Component
public class NightlyReport {

	private static final Logger logger = LoggerFactory.getLogger(NightlyReport.class);

	private final JdbcClient jdbc;

	public NightlyReport(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@RecurringTask(name = "nightly-report", cron = "0 0 2 * * *", zone = "Europe/Paris")
	public void report(TaskContext context) {
		long welcomed = this.jdbc.sql("SELECT count(*) FROM signup WHERE welcome_sent_at IS NOT NULL")
			.query(Long.class)
			.single();
		logger.info("Nightly report for the tick of {}: {} signups welcomed", context.scheduledAt(), welcomed);
	}

}
