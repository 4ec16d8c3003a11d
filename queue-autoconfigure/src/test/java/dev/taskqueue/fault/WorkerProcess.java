package dev.taskqueue.fault;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.util.Arrays;
import java.util.List;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.test.TestApplications;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A worker application in a JVM of its own, so that fault tests can kill it for real: its handler of queue
 * {@code business} writes one {@code business} row per task in the task's transaction, after
 * {@code worker.handler-millis} of work; its handler of queue {@code graph} writes the rows of {@link #GRAPH_TABLES}
 * around {@code worker.graph-millis} of work.
 * <p>
 * Arguments: the JDBC URL, then {@code name=value} properties.
 */
public final class WorkerProcess {

	/** The table the handler writes to; the test creates it before starting a worker. */
	static final String BUSINESS_TABLE = """
			CREATE TABLE business (n int NOT NULL, task_id uuid NOT NULL, worker text NOT NULL, attempt int NOT NULL,
			    enqueued_at timestamptz NOT NULL, done_at timestamptz NOT NULL DEFAULT clock_timestamp())
			""";

	/**
	 * The tables the handler of queue {@code graph} writes to: {@code graph_start} when a run starts, in a
	 * transaction of its own (so a run killed midway leaves its row), {@code graph_done} in the task's transaction
	 * (so a row exists exactly for each run that committed), both on the database clock.
	 */
	static final String GRAPH_TABLES = """
			CREATE TABLE graph_start (name text NOT NULL, task_id uuid NOT NULL, worker text NOT NULL,
			    attempt int NOT NULL, started_at timestamptz NOT NULL DEFAULT clock_timestamp());
			CREATE TABLE graph_done (name text NOT NULL, task_id uuid NOT NULL, worker text NOT NULL,
			    attempt int NOT NULL, done_at timestamptz NOT NULL DEFAULT clock_timestamp())
			""";

	private WorkerProcess() {
	}

	public static void main(String[] args) {
		// Never outlive the test JVM, whatever happens to it.
		ProcessHandle.current()
			.parent()
			.ifPresent((parent) -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
		ConfigurableApplicationContext context = TestApplications.start(args[0], List.of(Config.class),
				Arrays.copyOfRange(args, 1, args.length));
		Timestamp database = context.getBean(JdbcTemplate.class).queryForObject("SELECT clock_timestamp()",
				Timestamp.class);
		System.out.println("CLOCKS jvm=" + System.currentTimeMillis() + " database=" + database.getTime());
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		BusinessHandler businessHandler(JdbcTemplate jdbc, Environment environment) {
			return new BusinessHandler(jdbc, environment.getProperty("worker.name", "worker"),
					environment.getProperty("worker.handler-millis", Long.class, 0L),
					environment.getProperty("worker.graph-millis", Long.class, 0L));
		}

	}

	static class BusinessHandler {

		private final JdbcTemplate jdbc;

		private final String worker;

		private final long millis;

		private final long graphMillis;

		BusinessHandler(JdbcTemplate jdbc, String worker, long millis, long graphMillis) {
			this.jdbc = jdbc;
			this.worker = worker;
			this.millis = millis;
			this.graphMillis = graphMillis;
		}

		@TaskHandler(queue = "graph")
		void graph(String name, TaskContext context) throws Exception {
			try (Connection connection = this.jdbc.getDataSource().getConnection();
					PreparedStatement insert = connection.prepareStatement(
							"INSERT INTO graph_start (name, task_id, worker, attempt) VALUES (?, ?, ?, ?)")) {
				connection.setAutoCommit(true);
				insert.setString(1, name);
				insert.setObject(2, context.id());
				insert.setString(3, this.worker);
				insert.setInt(4, context.attempt());
				insert.executeUpdate();
			}
			Thread.sleep(this.graphMillis);
			this.jdbc.update("INSERT INTO graph_done (name, task_id, worker, attempt) VALUES (?, ?, ?, ?)", name,
					context.id(), this.worker, context.attempt());
		}

		@TaskHandler(queue = "business")
		void handle(int n, TaskContext context) throws InterruptedException {
			Thread.sleep(this.millis);
			this.jdbc.update("INSERT INTO business (n, task_id, worker, attempt, enqueued_at) VALUES (?, ?, ?, ?, ?)",
					n, context.id(), this.worker, context.attempt(), Timestamp.from(context.enqueuedAt()));
		}

	}

}
