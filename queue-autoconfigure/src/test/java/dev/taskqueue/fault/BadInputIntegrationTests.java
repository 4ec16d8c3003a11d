package dev.taskqueue.fault;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.test.PropertyFailures;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Injection attempts in the schema name and in queue names (from properties, annotations and enqueue calls), sizes
 * and durations out of range, and null requests fail fast with a message naming the property or argument, and
 * nothing is written: no tables, no tasks, no session, and the table the injection aimed at is still there.
 */
class BadInputIntegrationTests {

	private static final String INJECTION = "x'); DROP TABLE y; --";

	private final String url = TestDatabase.createDatabase();

	private final JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url));

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				TransactionAutoConfiguration.class, JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + this.url);

	BadInputIntegrationTests() {
		this.jdbc.execute("CREATE TABLE y (id int)");
		this.jdbc.execute("INSERT INTO y VALUES (1)");
	}

	@ParameterizedTest
	@ValueSource(strings = { "taskqueue.schema.name=x; drop table y",
			"taskqueue.schema.name=public\"; drop table y; --", "taskqueue.schema.name=" + INJECTION })
	void schemaNameInjectionFailsAndWritesNothing(String property) {
		String value = property.substring(property.indexOf('=') + 1);
		assertStartupFails(property, "taskqueue.schema.name: must be a plain SQL identifier");
		assertThat(taskQueueTables()).isZero();
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'x%' OR nspname "
				+ "LIKE 'public\"%'", Integer.class)).isZero();
	}

	@Test
	void queueNameInjectionInAPropertyKeyFailsAndWritesNothing() {
		assertStartupFails("taskqueue.queues[x; drop table y].concurrency=1",
				"taskqueue.queues key must be 1 to 100 letters, digits, '.', '_', '-' or ':' but was 'x; drop table y'");
		assertThat(taskQueueTables()).isZero();
	}

	@ParameterizedTest
	@ValueSource(strings = { "taskqueue.worker.heartbeat-interval=0s", "taskqueue.worker.timeout=-1s",
			"taskqueue.worker.concurrency=-1", "taskqueue.retry.max-attempts=0",
			"taskqueue.retry.backoff.initial-delay=-1ms", "taskqueue.retry.backoff.max-delay=-1s",
			"taskqueue.retry.backoff.jitter=-0.1", "taskqueue.queues.emails.timeout=0s",
			"taskqueue.queues.emails.timeout=-5s" })
	void sizeOrDurationOutOfRangeFailsNamingThePropertyAndWritesNothing(String property) {
		assertStartupFails(property, property.substring(0, property.indexOf('=')) + ": must ");
		assertThat(taskQueueTables()).isZero();
	}

	@Test
	void queueNameInjectionInAnAnnotationFailsNamingBeanAndMethod() {
		this.runner.withBean("injected", InjectedQueue.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessage("@TaskHandler on bean 'injected' method InjectedQueue.handle(String) names an invalid "
						+ "queue: '" + INJECTION + "'; a queue name is 1 to 100 letters, digits, '.', '_', '-' "
						+ "or ':'"));
		assertNoTaskNorSession();
	}

	@Test
	void queueNameInjectionThroughAPlaceholderFailsNamingBeanAndMethod() {
		this.runner.withBean("placeholder", PlaceholderQueue.class)
			.withPropertyValues("fault.queue=" + INJECTION)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessage("@TaskHandler on bean 'placeholder' method PlaceholderQueue.handle(String) names an "
						+ "invalid queue: '" + INJECTION + "'; a queue name is 1 to 100 letters, digits, '.', '_', "
						+ "'-' or ':'"));
		assertNoTaskNorSession();
	}

	@Test
	void badEnqueuesThrowNamingTheArgumentAndWriteNothing() {
		this.runner.withPropertyValues("taskqueue.worker.enabled=false").run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskRequest fine = TaskRequest.of("orders", "fine");
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueueAll(null))
				.withMessage("requests must not be null");
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueueAll(Arrays.asList(fine, null)))
				.withMessage("requests[1] must not be null");
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueue(null))
				.withMessage("request must not be null");
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueue(INJECTION, "payload"))
				.withMessage("queue must be 1 to 100 letters, digits, '.', '_', '-' or ':' but was '" + INJECTION
						+ "'");
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueue("q".repeat(101), "payload"))
				.withMessageStartingWith("queue must be 1 to 100 letters");
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueue("orders", null))
				.withMessage("payload must not be null (queue 'orders')");
			assertThatIllegalArgumentException().isThrownBy(() -> fine.withDelay(Duration.ofSeconds(-1)))
				.withMessage("delay must not be negative but was PT-1S");
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM y", Integer.class)).isOne();
		});
	}

	/** Startup with {@code property} fails with a refusal that starts with {@code refusal} (see PropertyFailures). */
	private void assertStartupFails(String property, String refusal) {
		this.runner.withPropertyValues(property)
			.run((context) -> assertThat(PropertyFailures.refusals(context.getStartupFailure()))
				.anySatisfy((reported) -> assertThat(reported).startsWith(refusal)));
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM y", Integer.class)).isOne();
	}

	private int taskQueueTables() {
		return this.jdbc.queryForObject(
				"SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'taskqueue%'", Integer.class);
	}

	private void assertNoTaskNorSession() {
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM y", Integer.class)).isOne();
		List<String> tables = this.jdbc.queryForList("SELECT table_name FROM information_schema.tables "
				+ "WHERE table_name IN ('taskqueue_task', 'taskqueue_session')", String.class);
		for (String table : tables) {
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM " + table, Integer.class)).as(table).isZero();
		}
	}

	static class InjectedQueue {

		@TaskHandler(queue = INJECTION)
		void handle(String payload) {
		}

	}

	static class PlaceholderQueue {

		@TaskHandler(queue = "${fault.queue}")
		void handle(String payload) {
		}

	}

}
