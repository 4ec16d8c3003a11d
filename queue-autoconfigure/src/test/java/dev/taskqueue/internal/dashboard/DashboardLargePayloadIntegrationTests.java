package dev.taskqueue.internal.dashboard;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pages of tasks with huge payloads, served by an application with a 256 MB heap (a JVM of its own): 60 waiting
 * tasks of 10 MB each and a dead letter of 100 MB. The pages read a bounded start of each payload and error in SQL,
 * so they answer at once instead of failing with an OutOfMemoryError.
 */
class DashboardLargePayloadIntegrationTests {

	private static final String url = TestDatabase.createDatabase();

	private static final int MB = 1024 * 1024;

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@Test
	void pagesOfHugePayloadsAnswerAtOnceInASmallHeap() throws Exception {
		try (DashboardProcess dashboard = DashboardProcess.start(url)) {
			int port = dashboard.awaitPort(Duration.ofMinutes(2));
			JdbcTemplate jdbc = new JdbcTemplate(new SimpleDriverDataSource(new org.postgresql.Driver(), url));
			// Inserted with SQL, built in the database: the test JVM never holds them.
			jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) SELECT gen_random_uuid(), 'dash-big', "
					+ "to_jsonb(i || repeat('x', ?)) FROM generate_series(1, 60) i", 10 * MB);
			UUID dead = UUID.randomUUID();
			jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, error) "
					+ "VALUES (?, 'dash-big', to_jsonb(repeat('y', ?)), 0, 1, now(), 'boom ' || repeat('z', ?))", dead,
					100 * MB, MB);
			UUID waiting = jdbc.queryForObject("SELECT id FROM taskqueue_task WHERE queue = 'dash-big' LIMIT 1",
					UUID.class);
			// Small pages first, so that what is timed below is the reading of the big rows, not a cold JVM.
			jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) VALUES (gen_random_uuid(), 'dash-small', '1')");
			get(port, "/taskqueue");
			get(port, "/taskqueue/queues/dash-small");
			get(port, "/taskqueue/dead?queue=dash-small");

			// The lists read no large payload at all (reading the 600 MB would take about six seconds); the page of one
			// task has PostgreSQL write out the payload as text to cut it, about a second per 100 MB on a busy machine.
			// The limits leave a loaded machine (load 10 on two cores) a few times an idle one's answer.
			assertAnswersWithin(dashboard, port, "/taskqueue/queues/dash-big", Duration.ofSeconds(3));
			assertAnswersWithin(dashboard, port, "/taskqueue/dead", Duration.ofSeconds(3));
			assertAnswersWithin(dashboard, port, "/taskqueue/dead?queue=dash-big", Duration.ofSeconds(3));
			assertAnswersWithin(dashboard, port, "/taskqueue/tasks/" + waiting, Duration.ofSeconds(3));
			assertAnswersWithin(dashboard, port, "/taskqueue/tasks/" + dead, Duration.ofSeconds(6));
			assertThat(get(port, "/taskqueue/queues/dash-big").body()).contains(DashboardQueries.LARGE);
			String deadPage = get(port, "/taskqueue/tasks/" + dead).body();
			assertThat(deadPage).contains("first 64 KB of 100.0 MB").doesNotContain("y".repeat(70 * 1024));
			assertThat(get(port, "/taskqueue/tasks/" + waiting).body()).contains("first 64 KB of 10.0 MB");
		}
	}

	private void assertAnswersWithin(DashboardProcess dashboard, int port, String path, Duration limit)
			throws Exception {
		long started = System.nanoTime();
		HttpResponse<String> response = get(port, path);
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		assertThat(response.statusCode()).as(path + ": " + dashboard.output()
			.lines()
			.filter((line) -> line.contains("OutOfMemoryError"))
			.findFirst()
			.orElse("")).isEqualTo(200);
		assertThat(took).as(path).isLessThan(limit);
	}

	private HttpResponse<String> get(int port, String path) throws Exception {
		return this.client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(60))
			.GET()
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
