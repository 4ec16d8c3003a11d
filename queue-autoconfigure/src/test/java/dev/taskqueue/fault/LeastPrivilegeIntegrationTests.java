package dev.taskqueue.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * An owner role migrates the schema; a runtime role holding only the grants docs/operations.md gives runs everything
 * TaskQueue does at runtime (enqueue, claim, retry, dead letters, history, pruning, pausing, the operations API)
 * with {@code taskqueue.schema.migrate=false}, and cannot drop, alter or add tables.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeastPrivilegeIntegrationTests {

	/** The grants of docs/operations.md ("Least privilege"), for schema {@code taskqueue} and role {@code taskqueue_runtime}. */
	static final String GRANTS = documentedGrants();

	private static final String SCHEMA = "taskqueue";

	private final String suffix = UUID.randomUUID().toString().substring(0, 8);

	private final String owner = "taskqueue_owner_" + this.suffix;

	private final String runtime = "taskqueue_runtime_" + this.suffix;

	private final String password = UUID.randomUUID().toString();

	private final String url = TestDatabase.createDatabase();

	private final JdbcTemplate superuser = new JdbcTemplate(new DriverManagerDataSource(this.url));

	@AfterEach
	void dropRoles() {
		this.superuser.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
		this.superuser.execute("DROP TABLE IF EXISTS business");
		for (String role : List.of(this.runtime, this.owner)) {
			if (count("SELECT count(*) FROM pg_roles WHERE rolname = '" + role + "'") > 0) {
				this.superuser.execute("DROP OWNED BY " + role);
				this.superuser.execute("DROP ROLE " + role);
			}
		}
	}

	@Test
	void runtimeRoleWithTheReadmeGrantsRunsTheQueueAndCannotChangeTheSchema(CapturedOutput output) {
		for (String role : List.of(this.owner, this.runtime)) {
			this.superuser.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + this.password + "'");
		}
		this.superuser.execute("CREATE SCHEMA " + SCHEMA + " AUTHORIZATION " + this.owner);
		this.superuser.execute("CREATE TABLE business (task_id uuid NOT NULL)");
		this.superuser.execute("GRANT INSERT ON business TO " + this.runtime);
		TestApplications.start(urlFor(this.owner), List.of(), "taskqueue.schema.name=" + SCHEMA,
				"taskqueue.worker.enabled=false").close();
		JdbcTemplate ownerJdbc = new JdbcTemplate(new DriverManagerDataSource(urlFor(this.owner)));
		for (String grant : GRANTS.replace("taskqueue_runtime", this.runtime).split(";")) {
			if (!grant.isBlank()) {
				ownerJdbc.execute(grant);
			}
		}

		List<UUID> good = new ArrayList<>();
		UUID failing;
		UUID nonRetryable;
		try (ConfigurableApplicationContext context = TestApplications.start(urlFor(this.runtime),
				List.of(Config.class), "taskqueue.schema.name=" + SCHEMA, "taskqueue.schema.migrate=false",
				"taskqueue.retry.max-attempts=2", "taskqueue.worker.heartbeat-interval=100ms",
				"taskqueue.worker.session-timeout=1s", "taskqueue.history.enabled=true",
				"taskqueue.retention.prune-interval=100ms")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			operations.pause("work");
			assertThat(operations.pausedQueues()).containsExactly("work");
			operations.resume("work");
			UUID later = taskQueue.enqueue(TaskRequest.of("work", "ok").withDelay(Duration.ofHours(1)));
			assertThat(operations.cancel(later)).isTrue();
			for (int i = 0; i < 20; i++) {
				good.add(taskQueue.enqueue("work", "ok"));
			}
			good.addAll(taskQueue.enqueueAll(List.of(TaskRequest.of("work", "ok"), TaskRequest.of("work", "ok"))));
			good.add(taskQueue.enqueue(TaskRequest.of("work", "ok").withDependsOn(good.get(0))));
			failing = taskQueue.enqueue("work", "fail");
			nonRetryable = taskQueue.enqueue("work", "give up");
			Await.until("every task is done or dead", Duration.ofSeconds(30), () -> deadTasks().size() == 2
					&& count("SELECT count(*) FROM " + SCHEMA + ".taskqueue_task") == 0);
			assertThat(operations.retryDead(failing)).isTrue();
			Await.until("the retried task is dead again", Duration.ofSeconds(30), () -> deadTasks().size() == 2);
			assertThat(operations.queueStats()).isNotEmpty();
			assertThat(operations.sessions()).hasSize(1);
			sleep(Duration.ofMillis(500)); // more heartbeats and prunes, which expire silent sessions and old rows
		}
		assertThat(this.superuser.queryForList("SELECT task_id FROM business", UUID.class))
			.containsExactlyInAnyOrderElementsOf(good);
		assertThat(deadTasks()).containsExactlyInAnyOrder(failing, nonRetryable);
		assertThat(count("SELECT count(*) FROM " + SCHEMA + ".taskqueue_history WHERE outcome = 'completed'"))
			.isEqualTo(good.size());
		assertThat(count("SELECT count(*) FROM " + SCHEMA + ".taskqueue_history WHERE outcome = 'cancelled'")).isOne();
		assertThat(count("SELECT count(*) FROM " + SCHEMA + ".taskqueue_result")).isEqualTo(good.size());
		assertThat(count("SELECT count(*) FROM " + SCHEMA + ".taskqueue_session")).isZero();
		assertThat(output).doesNotContain("permission denied").doesNotContain("Could not");

		JdbcTemplate runtimeJdbc = new JdbcTemplate(new DriverManagerDataSource(urlFor(this.runtime)));
		for (String sql : List.of("DROP TABLE taskqueue.taskqueue_task",
				"ALTER TABLE taskqueue.taskqueue_task ADD x int", "CREATE INDEX ON taskqueue.taskqueue_task (queue)")) {
			assertThatException().as(sql)
				.isThrownBy(() -> runtimeJdbc.execute(sql))
				.havingRootCause()
				.withMessageContaining("must be owner");
		}
		for (String sql : List.of("TRUNCATE taskqueue.taskqueue_task", "CREATE TABLE taskqueue.evil (id int)",
				"DELETE FROM taskqueue.taskqueue_schema_history", "SELECT * FROM business")) {
			assertThatException().as(sql)
				.isThrownBy(() -> runtimeJdbc.execute(sql))
				.havingRootCause()
				.withMessageContaining("permission denied");
		}
	}

	private List<UUID> deadTasks() {
		return this.superuser.queryForList("SELECT id FROM " + SCHEMA + ".taskqueue_dead_task", UUID.class);
	}

	private int count(String sql) {
		return this.superuser.queryForObject(sql, Integer.class);
	}

	private String urlFor(String role) {
		String[] parts = this.url.split("\\?", 2);
		List<String> parameters = new ArrayList<>();
		if (parts.length > 1) {
			Arrays.stream(parts[1].split("&"))
				.filter((parameter) -> !parameter.startsWith("user=") && !parameter.startsWith("password="))
				.forEach(parameters::add);
		}
		parameters.add("user=" + role);
		parameters.add("password=" + this.password);
		return parts[0] + "?" + String.join("&", parameters);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		WorkHandler workHandler(JdbcTemplate jdbc) {
			return new WorkHandler(jdbc);
		}

	}

	static class WorkHandler {

		private final JdbcTemplate jdbc;

		WorkHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "work")
		String handle(String payload, TaskContext context) {
			context.progress(50, "half way");
			switch (payload) {
				case "fail" -> throw new IllegalStateException("fails every time");
				case "give up" -> throw new NonRetryableTaskException("not worth retrying");
				default -> this.jdbc.update("INSERT INTO business (task_id) VALUES (?)", context.id());
			}
			return "done";
		}

	}

	/** Reads the SQL block of the "Least privilege" section, so that the page and this test cannot disagree. */
	private static String documentedGrants() {
		try {
			String page = Files.readString(Path.of("..", "docs", "operations.md"));
			int section = page.indexOf("## Least privilege");
			int start = page.indexOf("```sql\n", section) + "```sql\n".length();
			return page.substring(start, page.indexOf("```", start));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
