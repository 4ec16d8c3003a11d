package dev.taskqueue.actuate;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bloat figures where an operator sees them (docs/operations.md#bloat): the gauges, the health indicator's
 * detail and the endpoint, in a web application with the actuator on a real PostgreSQL. The dead rows are made in
 * taskqueue_history, which nothing of this application reads (a read of a page with dead rows may prune them and
 * lower the count), with autovacuum off for it; the horizon is held by a REPEATABLE READ transaction of a
 * connection of the test's own. No worker runs: its claims would read the task table.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=health,taskqueue",
				"management.endpoint.health.show-details=always", "taskqueue.worker.enabled=false",
				"taskqueue.metrics.refresh-interval=100ms", "taskqueue.bloat.dead-tuples=400",
				"taskqueue.bloat.dead-ratio=2", "taskqueue.bloat.horizon-age=1s" })
class BloatIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final int DEAD = 500;

	private static String url;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private JdbcTemplate jdbc;

	private RestTestClient http;

	@BeforeEach
	void connect() {
		this.http = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/actuator").build();
	}

	@Test
	void deadRowsShowInTheGaugesTheEndpointAndTheHealthDetail() throws Exception {
		this.jdbc.execute("ALTER TABLE taskqueue_history SET (autovacuum_enabled = false)");
		try (Connection writer = DriverManager.getConnection(url); Statement statement = writer.createStatement()) {
			statement.execute("INSERT INTO taskqueue_history (id, queue, payload, priority, attempts, enqueued_at) "
					+ "SELECT gen_random_uuid(), 'bloat', '{}', 0, 1, now() FROM generate_series(1, " + (DEAD + 100)
					+ ")");
			assertThat(statement.executeUpdate("DELETE FROM taskqueue_history WHERE id IN "
					+ "(SELECT id FROM taskqueue_history LIMIT " + DEAD + ")")).isEqualTo(DEAD);
		}
		Await.until(() -> DEAD + " dead rows in the gauge, read " + gauge("taskqueue.table.dead.tuples"), WAIT,
				() -> gauge("taskqueue.table.dead.tuples") == DEAD);
		assertThat(gauge("taskqueue.table.live.tuples")).isEqualTo(100);
		long size = this.jdbc.queryForObject("SELECT pg_total_relation_size('taskqueue_history')", Long.class);
		assertThat(gauge("taskqueue.table.size")).isEqualTo(size);
		assertThat(Search.in(this.meters).name("taskqueue.table.dead.tuples").gauges()).hasSize(3);

		this.http.get().uri("/taskqueue").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.bloat.tables[?(@.table == 'taskqueue_history')].deadTuples").isEqualTo(List.of(DEAD))
			.jsonPath("$.bloat.tables[?(@.table == 'taskqueue_history')].liveTuples").isEqualTo(List.of(100))
			.jsonPath("$.bloat.tables[?(@.table == 'taskqueue_history')].sizeBytes").isEqualTo(List.of((int) size))
			.jsonPath("$.bloat.tables[?(@.table == 'taskqueue_history')].overThreshold").isEqualTo(List.of(true))
			.jsonPath("$.bloat.tables[?(@.table == 'taskqueue_task')].overThreshold").isEqualTo(List.of(false))
			.jsonPath("$.bloat.warnings[0]").isEqualTo("taskqueue_history has 500 dead rows for 100 live ones "
					+ "(taskqueue.bloat.dead-tuples 400, dead-ratio 2.0): VACUUM has not removed them yet");
		this.http.get().uri("/health/taskqueue").exchange().expectStatus().isOk().expectBody()
			.jsonPath("$.status").isEqualTo("UP")
			.jsonPath("$.details.bloat.tables.length()").isEqualTo(1)
			.jsonPath("$.details.bloat.tables[0].table").isEqualTo("taskqueue_history")
			.jsonPath("$.details.bloat.tables[0].deadTuples").isEqualTo(DEAD);

		// Ratio: 500 dead for 300 live is under 2 to 1, so no warning, whatever the count.
		this.jdbc.execute("INSERT INTO taskqueue_history (id, queue, payload, priority, attempts, enqueued_at) "
				+ "SELECT gen_random_uuid(), 'bloat', '{}', 0, 1, now() FROM generate_series(1, 200)");
		Await.until("300 live rows counted", WAIT, () -> gauge("taskqueue.table.live.tuples") == 300);
		this.http.get().uri("/taskqueue").exchange().expectBody()
			.jsonPath("$.bloat.tables[?(@.table == 'taskqueue_history')].overThreshold").isEqualTo(List.of(false));
	}

	@Test
	void aHeldHorizonNamesItsSessionInTheHealthDetailUntilItLetsGo() throws Exception {
		int pid;
		try (Connection holder = DriverManager.getConnection(url)) {
			holder.setClientInfo("ApplicationName", "report-export");
			holder.setAutoCommit(false);
			holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
			try (Statement statement = holder.createStatement();
					ResultSet result = statement.executeQuery("SELECT pg_backend_pid()")) { // takes the snapshot
				result.next();
				pid = result.getInt(1);
			}
			Await.until("the health detail names the holder", WAIT,
					() -> horizon() != null && Integer.valueOf(pid).equals(horizon().get("pid")));
			Map<String, Object> horizon = horizon();
			assertThat(horizon).containsEntry("holder", "session")
				.containsEntry("applicationName", "report-export")
				.containsEntry("state", "idle in transaction")
				.containsEntry("overThreshold", true)
				.containsKeys("age", "xidAge", "transactionStart", "clientAddress")
				.doesNotContainKey("query");
			assertThat(Duration.parse((String) horizon.get("age"))).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
			assertThat(gauge("taskqueue.horizon.age")).isGreaterThanOrEqualTo(1.0);
			this.http.get().uri("/health/taskqueue").exchange().expectBody()
				.jsonPath("$.status").isEqualTo("UP")
				.jsonPath("$.details.bloat.warnings[?(@ =~ /The xmin horizon has been held for .*/)]").exists();
			this.http.get().uri("/taskqueue").exchange().expectBody().jsonPath("$.bloat.horizon.pid").isEqualTo(pid);
			holder.rollback();
		}
		Await.until("the detail clears once the transaction ended", WAIT, () -> horizon() == null);
	}

	/** The horizon in the health detail, as JSON has it; {@code null} when the detail has none. */
	@SuppressWarnings("unchecked")
	private Map<String, Object> horizon() {
		Map<String, Object> health = this.http.get().uri("/health/taskqueue").exchange().returnResult(Map.class)
			.getResponseBody();
		Map<String, Object> details = (Map<String, Object>) health.get("details");
		Map<String, Object> bloat = (details != null) ? (Map<String, Object>) details.get("bloat") : null;
		return (bloat != null) ? (Map<String, Object>) bloat.get("horizon") : null;
	}

	/**
	 * The gauge's value, or -1 before it is registered: the table gauges appear with the first report, which the
	 * refresh thread takes some time after the context started (later still on a loaded machine).
	 */
	private double gauge(String name) {
		if (name.startsWith("taskqueue.horizon")) {
			return this.meters.get(name).timeGauge().value();
		}
		Gauge gauge = this.meters.find(name).tag("table", "taskqueue_history").gauge();
		return (gauge != null) ? gauge.value() : -1;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
