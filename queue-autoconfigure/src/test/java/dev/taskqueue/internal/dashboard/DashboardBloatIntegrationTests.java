package dev.taskqueue.internal.dashboard;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The overview's section on table bloat (docs/operations.md#bloat): the dead rows of a task table past their
 * threshold, and the session holding the xmin horizon, named and escaped. The dead rows are made in
 * taskqueue_history, which nothing of this application reads (a read may prune them), with autovacuum off for it.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true", "taskqueue.worker.enabled=false",
				"taskqueue.metrics.refresh-interval=100ms", "taskqueue.bloat.dead-tuples=300",
				"taskqueue.bloat.horizon-age=1s" })
class DashboardBloatIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static String url;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	@LocalServerPort
	private int port;

	@Test
	void overviewShowsDeadRowsAndNamesTheHolderOfTheHorizon() throws Exception {
		DashboardHttp http = new DashboardHttp(this.port);
		try (Connection writer = DriverManager.getConnection(url); Statement statement = writer.createStatement()) {
			statement.execute("ALTER TABLE taskqueue_history SET (autovacuum_enabled = false)");
			statement.execute("INSERT INTO taskqueue_history (id, queue, payload, priority, attempts, enqueued_at) "
					+ "SELECT gen_random_uuid(), 'bloat', '{}', 0, 1, now() FROM generate_series(1, 1200)");
			statement.execute("DELETE FROM taskqueue_history WHERE id IN (SELECT id FROM taskqueue_history LIMIT 1000)");
		}
		Await.until("the dead rows on the overview", WAIT, () -> http.get("/taskqueue").body()
			.contains("<td>taskqueue_history</td><td class=\"num\"><span class=\"unhandled\">1,000</span></td>"
					+ "<td class=\"num\">200</td>"));
		String html = http.get("/taskqueue").body();
		assertThat(html).contains("<h2>Table bloat</h2>")
			.contains("<p class=\"problem\">taskqueue_history has 1,000 dead rows for 200 live ones")
			.contains("<td>taskqueue_task</td><td class=\"num\">0</td><td class=\"num\">0</td>")
			.contains("No transaction holds the xmin horizon.");

		try (Connection holder = DriverManager.getConnection(url)) {
			holder.setClientInfo("ApplicationName", "<script>alert(1)</script>");
			holder.setAutoCommit(false);
			holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
			int pid;
			try (Statement statement = holder.createStatement();
					ResultSet result = statement.executeQuery("SELECT pg_backend_pid()")) {
				result.next();
				pid = result.getInt(1);
			}
			String named = "Oldest holder of the xmin horizon: session pid " + pid
					+ " (application &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;";
			Await.until("the holder named past its threshold", WAIT, () -> {
				String page = http.get("/taskqueue").body();
				return page.contains(named) && page.contains("<p class=\"problem\">The xmin horizon has been held for ");
			});
			assertThat(http.get("/taskqueue").body()).doesNotContain("<script>alert(1)</script>");
			holder.rollback();
		}
		Await.until("the holder gone once it let go", WAIT,
				() -> http.get("/taskqueue").body().contains("No transaction holds the xmin horizon."));
	}

}
