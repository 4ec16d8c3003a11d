package dev.taskqueue.internal.producer;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.test.PropertyFailures;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code taskqueue.max-payload-size} is checked before any SQL, in every enqueue path, and a payload whose JSON is
 * not JSON (a {@link JsonRawValue} field) is refused there too: nothing is written and the caller's transaction
 * goes on, where PostgreSQL would fail the INSERT with the statement's text.
 */
class PayloadLimitIntegrationTests {

	private static final int MB = 1024 * 1024;

	private final String url = TestDatabase.createDatabase();

	private final JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url));

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				TransactionAutoConfiguration.class, JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + this.url, "taskqueue.worker.enabled=false");

	/** A string payload whose JSON (the string in quotes) is {@code bytes} long. */
	private static String payloadOf(int bytes) {
		return "x".repeat(bytes - 2);
	}

	@Test
	void payloadJustOverTheLimitIsRefusedInEveryPathAndNothingIsWritten() {
		String tooBig = payloadOf(MB + 1);
		String message = "(java.lang.String, queue 'orders') is 1048577 bytes as JSON, more than "
				+ "taskqueue.max-payload-size (1048576 bytes); store large data elsewhere and enqueue a reference "
				+ "to it, or raise taskqueue.max-payload-size";
		this.runner.run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			refused(() -> taskQueue.enqueue("orders", tooBig), "The payload of request " + message);
			refused(() -> taskQueue.offer(TaskRequest.of("orders", tooBig)), "The payload of request " + message);
			refused(() -> taskQueue.enqueueAll(List.of(TaskRequest.of("orders", "fine"), TaskRequest.of("orders",
					tooBig))), "The payload of requests[1] " + message);
			refused(() -> taskQueue.offerAll(List.of(TaskRequest.of("orders", tooBig))),
					"The payload of requests[0] " + message);
			refused(() -> taskQueue.publish("orders", tooBig), "The payload of payload " + message);
			refused(() -> taskQueue.enqueueBatch(List.of(TaskRequest.of("orders", tooBig)),
					TaskRequest.of("done", "then")), "The payload of tasks[0] " + message);
			refused(() -> taskQueue.enqueueBatch(List.of(TaskRequest.of("orders", "fine")),
					TaskRequest.of("orders", tooBig)), "The payload of then " + message);
			assertThat(tasks()).isZero();
		});
	}

	@Test
	void refusedPayloadLeavesTheCallersTransactionUsable() {
		this.runner.run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			transaction.executeWithoutResult((status) -> {
				assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueue("orders", payloadOf(MB + 1)));
				taskQueue.enqueue("orders", "after the refusal, same transaction");
			});
			assertThat(this.jdbc.queryForList("SELECT payload #>> '{}' FROM taskqueue_task", String.class))
				.containsExactly("after the refusal, same transaction");
		});
	}

	@Test
	void payloadAtTheLimitIsStored() {
		this.runner.run((context) -> {
			context.getBean(TaskQueue.class).enqueue("orders", payloadOf(MB));
			assertThat(this.jdbc.queryForObject("SELECT length(payload #>> '{}') FROM taskqueue_task", Integer.class))
				.isEqualTo(MB - 2);
		});
	}

	@Test
	void sizeCountsUtf8Bytes() {
		// 'é' is two bytes in UTF-8: half as many characters reach the same limit.
		String accented = "é".repeat(MB / 2);
		this.runner.run((context) -> {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> context.getBean(TaskQueue.class).enqueue("orders", accented))
				.withMessageContaining("is 1048578 bytes as JSON");
			// More characters than the limit has bytes: over it at a glance, and still said in bytes.
			assertThatIllegalArgumentException()
				.isThrownBy(() -> context.getBean(TaskQueue.class).enqueue("orders", "é".repeat(MB + 1)))
				.withMessageContaining("is " + (2L * (MB + 1) + 2) + " bytes as JSON");
			assertThat(tasks()).isZero();
		});
	}

	@Test
	void raisedLimitStoresLargerPayloads() {
		this.runner.withPropertyValues("taskqueue.max-payload-size=3MB").run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			taskQueue.enqueue("orders", payloadOf(3 * MB));
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueue("orders", payloadOf(3 * MB + 1)))
				.withMessageContaining("more than taskqueue.max-payload-size (3145728 bytes)");
			assertThat(tasks()).isOne();
		});
	}

	@Test
	void limitBeyondWhatJsonbHoldsIsRefusedAtStartup() {
		this.runner.withPropertyValues("taskqueue.max-payload-size=256MB")
			.run((context) -> PropertyFailures.assertRefused(context.getStartupFailure(), "taskqueue.max-payload-size",
					"must be from 1B to 255MB (about the most a jsonb value holds)"));
		this.runner.withPropertyValues("taskqueue.max-payload-size=0B")
			.run((context) -> PropertyFailures.assertRefused(context.getStartupFailure(), "taskqueue.max-payload-size",
					"must be from 1B to 255MB (about the most a jsonb value holds)"));
	}

	@Test
	void rawJsonThatIsNotJsonIsRefusedBeforeAnySql() {
		this.runner.run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			transaction.executeWithoutResult((status) -> {
				assertThatIllegalArgumentException()
					.isThrownBy(() -> taskQueue.enqueue("orders", new Raw("{\"unclosed\": ")))
					.withMessageStartingWith("The payload of request (" + Raw.class.getName()
							+ ", queue 'orders') is not valid JSON: ")
					.withMessageNotContaining("INSERT");
				taskQueue.enqueue("orders", new Raw("{\"closed\": true}"));
			});
			assertThat(this.jdbc.queryForObject("SELECT payload #>> '{json,closed}' FROM taskqueue_task",
					String.class)).isEqualTo("true");
		});
	}

	private static void refused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
		assertThatIllegalArgumentException().isThrownBy(call).withMessage(message);
	}

	private int tasks() {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class);
	}

	/** A payload that carries JSON text as it is: Jackson writes it without checking it. */
	record Raw(@JsonRawValue String json) {
	}

}
