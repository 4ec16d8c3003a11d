package dev.taskqueue.internal.dashboard;

import java.net.http.HttpResponse;
import java.time.Duration;

import dev.taskqueue.test.TestDatabase;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue of 1,000,000 waiting tasks (and 100,000 dead ones) opens in under a second: the pages never count or
 * sort the table. Each page is timed over HTTP, the first request after the rows went in (after an ANALYZE, as
 * autovacuum would have run on a real database).
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true", "taskqueue.worker.enabled=false" })
class DashboardLargeQueueIntegrationTests {

	private static final Log logger = LogFactory.getLog(DashboardLargeQueueIntegrationTests.class);

	private static final Duration LIMIT = Duration.ofSeconds(1);

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void aMillionWaitingTasksOpenInUnderASecond() {
		DashboardHttp http = new DashboardHttp(this.port);
		assertThat(http.get("/taskqueue").statusCode()).isEqualTo(200); // classes loaded, pool warm
		// Five priorities, all due, oldest first; then 1,000 scheduled ones; and 100,000 dead letters.
		this.jdbc.update("""
				INSERT INTO taskqueue_task (id, queue, payload, priority, run_at, enqueued_at)
				SELECT gen_random_uuid(), 'dash-big', jsonb_build_object('n', n, 'customer', 'c' || (n % 977)), n % 5,
				       now() - interval '2 hours' + n * interval '1 millisecond', now() - interval '2 hours'
				FROM generate_series(1, 1000000) n
				""");
		this.jdbc.update("""
				INSERT INTO taskqueue_task (id, queue, payload, priority, run_at)
				SELECT gen_random_uuid(), 'dash-big', jsonb_build_object('n', n), n % 5, now() + n * interval '1 minute'
				FROM generate_series(1, 1000) n
				""");
		this.jdbc.update("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error)
				SELECT gen_random_uuid(), 'dash-big', '{}', 0, 5, now() - interval '1 day',
				       now() - n * interval '1 second', 'java.lang.IllegalStateException: failure ' || n
				FROM generate_series(1, 100000) n
				""");
		this.jdbc.execute("ANALYZE taskqueue_task");
		this.jdbc.execute("ANALYZE taskqueue_dead_task");

		String overview = timed(http, "/taskqueue");
		assertThat(overview).contains("10,000+");
		String first = timed(http, "/taskqueue/queues/dash-big");
		assertThat(DashboardHttp.taskIds(first)).hasSize(DashboardPages.PAGE_SIZE);
		String next = DashboardHttp.all(first, "href=\"([^\"]+)\" rel=\"next\"").get(0).replace("&amp;", "&");
		assertThat(DashboardHttp.taskIds(timed(http, next))).hasSize(DashboardPages.PAGE_SIZE);
		// The scheduled tasks come after all ready ones of their priority in the index: found without reading those.
		assertThat(DashboardHttp.taskIds(timed(http, "/taskqueue/queues/dash-big?view=scheduled")))
			.hasSize(DashboardPages.PAGE_SIZE);
		assertThat(DashboardHttp.taskIds(timed(http, "/taskqueue/queues/dash-big?view=running"))).isEmpty();
		assertThat(DashboardHttp.taskIds(timed(http, "/taskqueue/dead?queue=dash-big")))
			.hasSize(DashboardPages.PAGE_SIZE);
		assertThat(DashboardHttp.taskIds(timed(http, "/taskqueue/dead?queue=dash-big&error=failure%2099999")))
			.hasSize(1); // a rare text: read on through all 100,000
		String task = DashboardHttp.taskIds(first).get(0);
		timed(http, "/taskqueue/tasks/" + task);
	}

	private String timed(DashboardHttp http, String path) {
		long start = System.nanoTime();
		HttpResponse<String> response = http.get(path);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		logger.info(path + " took " + took.toMillis() + " ms");
		assertThat(response.statusCode()).as(path).isEqualTo(200);
		assertThat(took).as(path + " took " + took.toMillis() + " ms").isLessThan(LIMIT);
		return response.body();
	}

}
