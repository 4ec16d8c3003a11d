package dev.taskqueue.distributed;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The handlers of {@link DistributedSqlScenarios}, each class the handler bean of one application instance.
 */
final class ScenarioHandlers {

	private ScenarioHandlers() {
	}

	record Echoed(String payload, AtomicInteger calls) {

		int get() {
			return this.calls.get();
		}

	}

	/** The single-instance scenarios: a handler that succeeds, one that fails twice, one that always fails. */
	static class Handlers {

		final Map<UUID, Echoed> echoed = new ConcurrentHashMap<>();

		final List<Integer> flakyAttempts = new CopyOnWriteArrayList<>();

		final List<UUID> flakySucceeded = new CopyOnWriteArrayList<>();

		final AtomicInteger alwaysFailsAttempts = new AtomicInteger();

		@TaskHandler(queue = "echo")
		void echo(String payload, TaskContext context) {
			this.echoed.computeIfAbsent(context.id(), (id) -> new Echoed(payload, new AtomicInteger()))
				.calls()
				.incrementAndGet();
		}

		@TaskHandler(queue = "flaky")
		void flaky(String payload, TaskContext context) throws IOException {
			this.flakyAttempts.add(context.attempt());
			if (context.attempt() < 3) {
				throw new IOException("attempt " + context.attempt() + " fails");
			}
			this.flakySucceeded.add(context.id());
		}

		@TaskHandler(queue = "always-fails")
		void alwaysFails(String payload, TaskContext context) {
			this.alwaysFailsAttempts.incrementAndGet();
			throw new IllegalStateException("fails on attempt " + context.attempt());
		}

	}

	/** Writes a business row in the handler's transaction: exactly once means one row per task. */
	static class BusinessHandler {

		private final JdbcTemplate jdbc;

		private final String instance = UUID.randomUUID().toString();

		BusinessHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "business")
		void handle(Map<String, Integer> payload, TaskContext context) {
			this.jdbc.update("INSERT INTO business (task_id, instance) VALUES (?, ?)", context.id(), this.instance);
		}

	}

	/** A handler held while its instance's session expires, and the handler of the instance that takes over. */
	static final class SessionExpiry {

		static volatile CountDownLatch slowStarted = new CountDownLatch(1);

		static volatile CountDownLatch releaseSlow = new CountDownLatch(1);

		static final List<Integer> slowAttempts = new CopyOnWriteArrayList<>();

		static final List<Integer> fastAttempts = new CopyOnWriteArrayList<>();

		private SessionExpiry() {
		}

		/** Each database's test class runs the scenario once; it starts from fresh latches and lists. */
		static void reset() {
			slowStarted = new CountDownLatch(1);
			releaseSlow = new CountDownLatch(1);
			slowAttempts.clear();
			fastAttempts.clear();
		}

		static class SlowHandler {

			private final JdbcTemplate jdbc;

			SlowHandler(JdbcTemplate jdbc) {
				this.jdbc = jdbc;
			}

			@TaskHandler(queue = "expiry")
			void handle(String payload, TaskContext context) throws InterruptedException {
				slowAttempts.add(context.attempt());
				this.jdbc.update("INSERT INTO business (task_id, attempt) VALUES (?, ?)", context.id(),
						context.attempt());
				slowStarted.countDown();
				releaseSlow.await(60, TimeUnit.SECONDS);
			}

		}

		static class FastHandler {

			private final JdbcTemplate jdbc;

			FastHandler(JdbcTemplate jdbc) {
				this.jdbc = jdbc;
			}

			@TaskHandler(queue = "expiry")
			void handle(String payload, TaskContext context) {
				fastAttempts.add(context.attempt());
				this.jdbc.update("INSERT INTO business (task_id, attempt) VALUES (?, ?)", context.id(),
						context.attempt());
			}

		}

	}

}
