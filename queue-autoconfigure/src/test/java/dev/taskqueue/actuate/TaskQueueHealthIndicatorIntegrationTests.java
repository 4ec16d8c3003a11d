package dev.taskqueue.actuate;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.autoconfigure.TaskQueueHealthContributorAutoConfiguration;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import dev.taskqueue.internal.worker.TaskWorker;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each state of the {@code taskqueue} health indicator, brought about for real on PostgreSQL.
 */
class TaskQueueHealthIndicatorIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void upWhileTheSessionBeats() {
		try (ConfigurableApplicationContext context = start(TestDatabase.createDatabase())) {
			Health health = health(context);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("worker", "running")
				.containsEntry("session", context.getBean(TaskWorker.class).sessionId())
				.containsEntry("liveSessions", 1)
				.containsKeys("lastHeartbeat", "heartbeatAge");
		}
	}

	@Test
	void downWhenAnotherInstanceExpiredTheSession() {
		try (ConfigurableApplicationContext context = start(TestDatabase.createDatabase(),
				"taskqueue.worker.heartbeat-interval=10m", "taskqueue.worker.session-timeout=1h")) {
			context.getBean(JdbcTemplate.class).update("DELETE FROM taskqueue_session");
			Health health = health(context);
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat((String) health.getDetails().get("error"))
				.startsWith("The session is no longer in the database");
		}
	}

	@Test
	void downWhenHeartbeatsStopArrivingAndUpWhenTheyResume() throws Exception {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = start(url, "taskqueue.worker.heartbeat-interval=100ms",
				"taskqueue.worker.session-timeout=1h")) {
			Await.until("the indicator is up", WAIT, () -> health(context).getStatus().equals(Status.UP));
			// A lock on the session row makes every heartbeat wait: what a database that stopped answering the
			// heartbeat thread, or a stalled instance, looks like from outside.
			try (Connection locker = DriverManager.getConnection(url); Statement statement = locker.createStatement()) {
				locker.setAutoCommit(false);
				statement.execute("SELECT * FROM taskqueue_session FOR UPDATE");
				Await.until("the indicator is down", WAIT, () -> health(context).getStatus().equals(Status.DOWN));
				assertThat((String) health(context).getDetails().get("error")).startsWith("No heartbeat for ")
					.contains("more than PT0.3S");
				locker.rollback();
			}
			Await.until("the indicator is up again", WAIT, () -> health(context).getStatus().equals(Status.UP));
		}
	}

	@Test
	void downWhenTheDatabaseCannotBeReached() {
		String url = TestDatabase.createDatabase();
		String database = url.replaceAll(".*/([^/?]+)(\\?.*)?$", "$1");
		try (ConfigurableApplicationContext context = start(url, "spring.datasource.hikari.connection-timeout=500",
				"spring.datasource.hikari.validation-timeout=250")) {
			assertThat(health(context).getStatus()).isEqualTo(Status.UP);
			String server = url.replace("/" + database, "/postgres");
			TestDatabase.execute(server, "ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS false");
			try {
				TestDatabase.execute(server,
						"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
				Await.until("the indicator is down", WAIT, () -> health(context).getStatus().equals(Status.DOWN));
				assertThat(health(context).getDetails()).containsKey("error");
			}
			finally {
				TestDatabase.execute(server, "ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS true");
			}
			Await.until("the indicator is up again", WAIT, () -> health(context).getStatus().equals(Status.UP));
		}
	}

	/**
	 * With the pool's own connection timeout (30 s), a check that waited for a connection would read UP through a
	 * 20 s outage; the indicator answers within its own timeout instead, and says why without the SQL.
	 */
	@Test
	void downWithinItsTimeoutWhenTheDatabaseCannotBeReached() {
		String url = TestDatabase.createDatabase();
		String database = url.replaceAll(".*/([^/?]+)(\\?.*)?$", "$1");
		try (ConfigurableApplicationContext context = start(url)) { // taskqueue.health.timeout: 2s
			assertThat(health(context).getStatus()).isEqualTo(Status.UP);
			String server = url.replace("/" + database, "/postgres");
			TestDatabase.execute(server, "ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS false");
			try {
				TestDatabase.execute(server,
						"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
				for (int check = 0; check < 3; check++) { // the first, and those while it still waits for the pool
					long started = System.nanoTime();
					Health health = health(context);
					Duration took = Duration.ofNanos(System.nanoTime() - started);
					assertThat(health.getStatus()).isEqualTo(Status.DOWN);
					// Its own 2 s and room for a loaded machine, well short of the pool's 30 s.
					assertThat(took).isLessThan(Duration.ofSeconds(10));
					assertThat(health.getDetails()).containsKey("error");
					assertNoSql(health);
				}
			}
			finally {
				TestDatabase.execute(server, "ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS true");
			}
			Await.until("the indicator is up again", Duration.ofSeconds(40),
					() -> health(context).getStatus().equals(Status.UP));
		}
	}

	/** A statement that fails (here a table that is gone; in life a missing grant) is reported without its SQL. */
	@Test
	void downWithoutTheSqlWhenTheStatementFails() {
		try (ConfigurableApplicationContext context = start(TestDatabase.createDatabase(),
				"taskqueue.worker.heartbeat-interval=10m", "taskqueue.worker.session-timeout=1h")) {
			context.getBean(JdbcTemplate.class).execute("ALTER TABLE taskqueue_session RENAME TO taskqueue_gone");
			Health health = health(context);
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("error", "BadSqlGrammarException (SQLSTATE 42P01)");
			assertNoSql(health);
			context.getBean(JdbcTemplate.class).execute("ALTER TABLE taskqueue_gone RENAME TO taskqueue_session");
		}
	}

	private static void assertNoSql(Health health) {
		assertThat(health.getDetails().toString()).doesNotContainIgnoringCase("select")
			.doesNotContain("taskqueue_")
			.doesNotContain("SQL [");
	}

	/**
	 * Tasks of a queue that no live instance handles wait for ever; health names the queue but stays UP, since no
	 * restart of this instance would help (the queue may be another application's).
	 */
	@Test
	void upButNamingTheQueuesWithWaitingTasksThatNoLiveInstanceHandles() {
		try (ConfigurableApplicationContext context = start(TestDatabase.createDatabase())) {
			TaskQueue queue = context.getBean(TaskQueue.class);
			queue.enqueue(TaskRequest.of("nobody-handles-me", "x").withDelay(Duration.ofHours(1)));
			queue.enqueue(TaskRequest.of("health", "handled here").withDelay(Duration.ofHours(1)));
			Health health = health(context);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("unhandledQueues", List.of("nobody-handles-me"));
		}
	}

	@Test
	void downWhenTheWorkerHasStopped() {
		try (ConfigurableApplicationContext context = start(TestDatabase.createDatabase())) {
			context.getBean(TaskWorker.class).stop();
			Health health = health(context);
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("worker", "stopped");
		}
	}

	@Test
	void upWithoutWorkerOrWithoutHandlers() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(Indicator.class),
				"taskqueue.worker.enabled=false");
				ConfigurableApplicationContext idle = TestApplications.start(url, List.of(Indicator.class))) {
			assertThat(health(producer).getStatus()).isEqualTo(Status.UP);
			assertThat(health(producer).getDetails()).containsEntry("worker", "disabled");
			assertThat(health(idle).getStatus()).isEqualTo(Status.UP);
			assertThat(health(idle).getDetails()).containsEntry("worker", "not started: no @TaskHandler methods");
		}
	}

	@Test
	void offWithItsManagementProperty() {
		try (ConfigurableApplicationContext context = start(TestDatabase.createDatabase(),
				"management.health.taskqueue.enabled=false")) {
			assertThat(context.getBeansOfType(HealthIndicator.class)).isEmpty();
		}
	}

	private static ConfigurableApplicationContext start(String url, String... properties) {
		return TestApplications.start(url, List.of(Indicator.class, Handlers.class), properties);
	}

	private static Health health(ConfigurableApplicationContext context) {
		return context.getBean("taskqueueHealthIndicator", HealthIndicator.class).health();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(TaskQueueHealthContributorAutoConfiguration.class)
	static class Indicator {

	}

	static class Handlers {

		@TaskHandler(queue = "health")
		void handle(Map<String, String> payload) {
		}

	}

}
