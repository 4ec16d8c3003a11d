package dev.taskqueue.fault;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.test.TestDatabase;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
 * Enqueue input that PostgreSQL cannot store (NUL in text or jsonb, unpaired UTF-16 surrogates that the driver would
 * turn into '?', times out of range) fails with an {@link IllegalArgumentException} naming what is wrong and where,
 * before any SQL: nothing is written, and the caller's transaction goes on as if the call had not been made.
 */
class UnstorableInputIntegrationTests {

	private final String url = TestDatabase.createDatabase();

	private final JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url));

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
				DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
				TransactionAutoConfiguration.class, JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + this.url, "taskqueue.worker.enabled=false");

	static Stream<Arguments> unstorablePayloads() {
		return Stream.of(Arguments.of("a\u0000b", "the string at $ contains U+0000 (NUL)"),
				Arguments.of(new Note("to\u0000do", List.of()), "the string at $.text contains U+0000 (NUL)"),
				Arguments.of(Map.of("k\u0000", 1), "a field name in $ contains U+0000 (NUL)"),
				Arguments.of(new Note("fine", List.of("ok", "bad\uD800")),
						"the string at $.lines[1] contains an unpaired UTF-16 surrogate (U+D800)"),
				Arguments.of(Map.of("a b", "\uDC00"), "the string at $['a b'] contains an unpaired UTF-16 surrogate "
						+ "(U+DC00)"),
				Arguments.of("ends with half an emoji \uD83D", "an unpaired UTF-16 surrogate (U+D83D)"),
				Arguments.of(Map.of("amount", new BigDecimal("1E+200000")),
						"the number 1E+200000 is beyond the range of PostgreSQL's numeric"),
				Arguments.of(List.of("1e5", new BigDecimal("1E-20000")),
						"the number 1E-20000 is beyond the range of PostgreSQL's numeric"));
	}

	@ParameterizedTest
	@MethodSource("unstorablePayloads")
	void unstorablePayloadThrowsNamingWhereAndWritesNothing(Object payload, String problem) {
		this.runner.run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueue("orders", payload))
				.withMessageStartingWith("The payload of request (" + payload.getClass().getName()
						+ ", queue 'orders') cannot be stored: ")
				.withMessageContaining(problem);
			assertThat(tasks()).isZero();
		});
	}

	@Test
	void oneUnstorableElementOfABatchThrowsNamingItsIndexAndWritesNone() {
		this.runner.run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			List<TaskRequest> requests = List.of(TaskRequest.of("orders", "one"), TaskRequest.of("orders", "two"),
					TaskRequest.of("orders", new Note("x", List.of("\u0000"))));
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueueAll(requests))
				.withMessage("The payload of requests[2] (" + Note.class.getName() + ", queue 'orders') cannot be "
						+ "stored: the string at $.lines[0] contains U+0000 (NUL), which PostgreSQL cannot store in "
						+ "text or jsonb");
			assertThat(tasks()).isZero();
		});
	}

	@Test
	void failedEnqueueLeavesTheCallersTransactionUsable() {
		this.runner.run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
			transaction.executeWithoutResult((status) -> {
				assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueue("orders", "a\u0000b"));
				assertThatIllegalArgumentException()
					.isThrownBy(() -> taskQueue.enqueueAll(List.of(TaskRequest.of("orders", "\uD800"))));
				// PostgreSQL refuses every statement of a transaction after a failed one: this one runs.
				taskQueue.enqueue("orders", "after the failures, same transaction");
			});
			transaction.executeWithoutResult((status) -> taskQueue.enqueue("orders", "fresh transaction"));
			assertThat(this.jdbc.queryForList("SELECT payload #>> '{}' FROM taskqueue_task ORDER BY id",
					String.class))
				.containsExactly("after the failures, same transaction", "fresh transaction");
		});
	}

	@Test
	void textThatOnlyLooksSuspiciousIsStoredAsItIs() {
		List<String> payloads = List.of("emoji \uD83D\uDE00", "control \u0001", "escaped text \\u0000",
				"backslash at the end \\");
		this.runner.run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			payloads.forEach((payload) -> taskQueue.enqueue("orders", payload));
			taskQueue.enqueue("orders", Map.of("emoji \uD83D\uDE00", List.of("\\u0000")));
			assertThat(this.jdbc.queryForList("SELECT payload #>> '{}' FROM taskqueue_task "
					+ "WHERE jsonb_typeof(payload) = 'string' ORDER BY id", String.class))
				.containsExactlyElementsOf(payloads);
			assertThat(this.jdbc.queryForObject("SELECT payload -> 'emoji \uD83D\uDE00' ->> 0 FROM taskqueue_task "
					+ "WHERE jsonb_typeof(payload) = 'object'", String.class)).isEqualTo("\\u0000");
			// Large but within numeric's range, and "e" in strings, are not numbers to refuse.
			taskQueue.enqueue("orders", List.of(new BigDecimal("1E+131071"), new BigDecimal("1E-16383"), "1e99999"));
			assertThat(this.jdbc.queryForObject("SELECT length(payload ->> 0) FROM taskqueue_task "
					+ "WHERE jsonb_typeof(payload) = 'array'", Integer.class)).isEqualTo(131_072);
		});
	}

	@Test
	void unstorableTraceContextThrowsNamingTheHeaderAndWritesNothing() {
		this.runner.withBean(ObservationRegistry.class, () -> {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new BaggageHandler());
			return registry;
		}).run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			assertThatIllegalArgumentException().isThrownBy(() -> taskQueue.enqueue("orders", "fine"))
				.withMessage("The trace context of the enqueue on queue 'orders' cannot be stored: the value of "
						+ "header 'baggage' contains U+0000 (NUL), which PostgreSQL cannot store in text or jsonb");
			assertThat(tasks()).isZero();
		});
	}

	@Test
	void timesOutOfRangeThrowNamingTheArgument() {
		TaskRequest request = TaskRequest.of("orders", "x");
		assertThatIllegalArgumentException().isThrownBy(() -> request.withRunAt(Instant.MAX))
			.withMessageStartingWith("runAt must be at most 100 years (PT876600H) before or after now, ")
			.withMessageEndingWith(" but was " + Instant.MAX);
		// Year 1 is a time PostgreSQL stores, but one whose age overflows a long of nanoseconds.
		assertThatIllegalArgumentException().isThrownBy(() -> request.withRunAt(Instant.parse("0001-01-01T00:00:00Z")))
			.withMessageStartingWith("runAt must be at most 100 years (PT876600H) before or after now, ");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> request.withRunAt(Instant.now().plus(Duration.ofDays(36_526))))
			.withMessageStartingWith("runAt must be at most 100 years");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> request.withRunAt(Instant.now().minus(Duration.ofDays(36_526))))
			.withMessageStartingWith("runAt must be at most 100 years");
		assertThatIllegalArgumentException().isThrownBy(() -> request.withDelay(Duration.ofSeconds(Long.MAX_VALUE)))
			.withMessageStartingWith("delay must be at most 100 years (PT876600H) but was ");
	}

	@Test
	void timesAtTheLimitsAreStored() {
		this.runner.run((context) -> {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskRequest request = TaskRequest.of("orders", "x");
			Instant now = Instant.now();
			taskQueue.enqueueAll(List.of(request.withRunAt(now.minus(Duration.ofDays(36_524))),
					request.withRunAt(now.plus(Duration.ofDays(36_524)))));
			taskQueue.enqueue(request.withDelay(Duration.ofDays(36_525)));
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE run_at "
					+ "BETWEEN now() - interval '101 years' AND now() - interval '99 years'", Integer.class)).isOne();
			assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE run_at "
					+ "BETWEEN now() + interval '99 years' AND now() + interval '101 years'", Integer.class))
				.isEqualTo(2);
		});
	}

	private int tasks() {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class);
	}

	record Note(String text, List<String> lines) {
	}

	/** Propagates baggage that a caller set with a NUL in it, as a tracing bridge would. */
	static class BaggageHandler implements ObservationHandler<Observation.Context> {

		@Override
		@SuppressWarnings("unchecked")
		public void onStart(Observation.Context context) {
			SenderContext<Map<String, String>> sender = (SenderContext<Map<String, String>>) context;
			sender.getSetter().set(sender.getCarrier(), "baggage", "user=a\u0000b");
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof SenderContext<?>;
		}

	}

}
