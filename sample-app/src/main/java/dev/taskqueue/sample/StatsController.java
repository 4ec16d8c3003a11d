package dev.taskqueue.sample;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /stats}: what the queues hold and how many signups were welcomed, read straight from the tables.
 */
@RestController
public class StatsController {

	private static final String STATS = """
			SELECT (SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NULL) AS waiting,
			       (SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NULL AND attempt > 0) AS waiting_to_retry,
			       (SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NOT NULL) AS running,
			       (SELECT count(*) FROM taskqueue_dead_task) AS dead,
			       (SELECT count(*) FROM signup) AS signups,
			       (SELECT count(*) FROM signup WHERE welcome_sent_at IS NOT NULL) AS welcome_emails_sent
			""";

	private final JdbcClient jdbc;

	public StatsController(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@GetMapping("/stats")
	public Stats stats() {
		return this.jdbc.sql(STATS).query(Stats.class).single();
	}

	/** The response body. */
	public record Stats(long waiting, long waitingToRetry, long running, long dead, long signups,
			long welcomeEmailsSent) {
	}

}
