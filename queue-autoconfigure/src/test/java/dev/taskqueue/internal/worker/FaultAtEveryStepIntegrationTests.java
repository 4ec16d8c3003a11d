package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whatever is thrown between a task's claim and its outcome, an {@link Error} as much as a
 * {@link RuntimeException}, the task gets an outcome, no handler thread dies of it, and the queue's unit of
 * concurrency comes back: each queue runs one task at a time, so the task after the faulty one completing proves it.
 */
@ExtendWith(OutputCaptureExtension.class)
class FaultAtEveryStepIntegrationTests {

	/** Where the fault is thrown, once, on a worker thread. */
	enum Step {

		/** The payload type's constructor, while the payload is read. */
		PAYLOAD,

		/** An interceptor, before it calls the handler. */
		INTERCEPTOR,

		/** The handler, before its work. */
		HANDLER,

		/** A listener told that the task started. */
		LISTENER_STARTED,

		/** A listener told that the task completed. */
		LISTENER_COMPLETED,

		/** A listener told that the task failed: the handler fails on its first attempt, then succeeds. */
		LISTENER_FAILED,

		/** The completion: the commit of the handler's transaction, after the handler did its work. */
		COMPLETION,

		/** An after-commit callback of the handler's transaction: the task has completed all the same. */
		AFTER_COMMIT

	}

	static final Map<String, AtomicInteger> handlerRuns = new ConcurrentHashMap<>();

	static final List<String> events = new CopyOnWriteArrayList<>();

	static final List<Throwable> uncaught = new CopyOnWriteArrayList<>();

	static volatile Step armedStep;

	static volatile boolean armedError;

	private static Thread.UncaughtExceptionHandler previousHandler;

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		previousHandler = Thread.getDefaultUncaughtExceptionHandler();
		Thread.setDefaultUncaughtExceptionHandler((thread, ex) -> uncaught.add(ex));
		context = TestApplications.start(TestDatabase.createDatabase(), List.of(Config.class),
				"taskqueue.queues.grouped.group-commit-size=5", "taskqueue.worker.group-commit-max-delay=50ms",
				"taskqueue.worker.completion-flush-interval=20ms");
		JdbcClient.create(context.getBean(javax.sql.DataSource.class))
			.sql("CREATE TABLE effect (task text NOT NULL)")
			.update();
	}

	@AfterAll
	static void stop() {
		context.close();
		Thread.setDefaultUncaughtExceptionHandler(previousHandler);
	}

	@BeforeEach
	void reset() {
		armedStep = null;
		events.clear();
		uncaught.clear();
	}

	static Stream<Arguments> faults() {
		return Stream.of("transactional", "grouped", "batched")
			.flatMap((queue) -> Stream.of(Step.values())
				// A batched completion is written later by the flusher, which retries what it cannot write.
				.filter((step) -> !(queue.equals("batched") && (step == Step.COMPLETION || step == Step.AFTER_COMMIT)))
				.flatMap((step) -> Stream.of(Arguments.of(queue, step, true), Arguments.of(queue, step, false))));
	}

	@ParameterizedTest(name = "{0}: {1}, error={2}")
	@MethodSource("faults")
	void theTaskGetsAnOutcomeAndTheWorkerGoesOn(String queue, Step step, boolean error, CapturedOutput output) {
		TaskQueue taskQueue = context.getBean(TaskQueue.class);
		JdbcClient jdbc = JdbcClient.create(context.getBean(javax.sql.DataSource.class));
		String name = queue + "-" + step + "-" + error;
		armedError = error;
		armedStep = step;
		UUID id = taskQueue.enqueue(queue, new Job(name, step == Step.LISTENER_FAILED));

		Await.until(name + " gets its outcome", Duration.ofSeconds(10), () -> jdbc
			.sql("SELECT count(*) FROM taskqueue_task WHERE id = :id")
			.param("id", id)
			.query(Integer.class)
			.single() == 0 && (events.contains("completed " + id) || events.contains("dead " + id)));

		assertThat(armedStep).as("the fault was thrown").isNull();
		int dead = jdbc.sql("SELECT count(*) FROM taskqueue_dead_task WHERE id = :id")
			.param("id", id)
			.query(Integer.class)
			.single();
		int effects = jdbc.sql("SELECT count(*) FROM effect WHERE task = :name")
			.param("name", name)
			.query(Integer.class)
			.single();
		int runs = handlerRuns.getOrDefault(name, new AtomicInteger()).get();
		switch (step) {
			case PAYLOAD -> {
				assertThat(dead).as("dead letters").isEqualTo(1);
				assertThat(runs).as("handler runs").isZero();
				assertThat(effects).as("effects").isZero();
				assertThat(events).containsExactly("dead " + id);
			}
			case INTERCEPTOR -> {
				assertThat(dead).as("dead letters").isZero();
				assertThat(runs).as("handler runs").isEqualTo(1);
				assertThat(effects).as("effects").isEqualTo(1);
				assertThat(events).containsExactly("retry " + id, "completed " + id);
			}
			case HANDLER, LISTENER_FAILED, COMPLETION -> {
				assertThat(dead).as("dead letters").isZero();
				assertThat(runs).as("handler runs").isEqualTo(2);
				assertThat(effects).as("effects").isEqualTo((queue.equals("batched") && step != Step.HANDLER) ? 2 : 1);
				assertThat(events).containsExactly("retry " + id, "completed " + id);
			}
			case LISTENER_STARTED, LISTENER_COMPLETED, AFTER_COMMIT -> {
				assertThat(dead).as("dead letters").isZero();
				assertThat(runs).as("handler runs").isEqualTo(1);
				assertThat(effects).as("effects").isEqualTo(1);
				assertThat(events).containsExactly("completed " + id);
			}
		}

		UUID next = taskQueue.enqueue(queue, new Job(name + "-next", false));
		Await.until("the queue's next task completes", Duration.ofSeconds(10),
				() -> events.contains("completed " + next));
		assertThat(uncaught).as("exceptions that ended a thread").isEmpty();
		assertThat(output).as("the handler thread's last-resort catch").doesNotContain("should have settled");
	}

	/** Throws the armed fault if {@code step} is armed and this is a worker thread; once. */
	static void trip(Step step) {
		if (armedStep != step || !Thread.currentThread().getName().startsWith("tq-")) {
			return;
		}
		synchronized (FaultAtEveryStepIntegrationTests.class) {
			if (armedStep != step) {
				return;
			}
			armedStep = null;
		}
		// A NUL, which PostgreSQL cannot store in text: the error text written with the outcome must do without.
		String message = "fault at " + step + " \u0000";
		if (armedError) {
			throw new AssertionError(message);
		}
		throw new IllegalStateException(message);
	}

	/** A payload whose constructor may throw while the worker reads it. */
	record Job(String name, boolean failFirst) {

		Job {
			trip(Step.PAYLOAD);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Handlers handlers(javax.sql.DataSource dataSource) {
			return new Handlers(JdbcClient.create(dataSource));
		}

		@Bean
		@Order(1)
		TaskQueueListener faultyListener() {
			return new TaskQueueListener() {

				@Override
				public void started(TaskContext task, Duration pickupLatency) {
					trip(Step.LISTENER_STARTED);
				}

				@Override
				public void completed(TaskContext task, Duration duration) {
					trip(Step.LISTENER_COMPLETED);
				}

				@Override
				public void failed(TaskContext task, Duration duration, Throwable error, boolean dead) {
					trip(Step.LISTENER_FAILED);
				}

			};
		}

		@Bean
		@Order(2)
		TaskQueueListener recordingListener() {
			return new TaskQueueListener() {

				@Override
				public void completed(TaskContext task, Duration duration) {
					events.add("completed " + task.id());
				}

				@Override
				public void failed(TaskContext task, Duration duration, Throwable error, boolean dead) {
					events.add((dead ? "dead " : "retry ") + task.id());
				}

			};
		}

		@Bean
		TaskHandlerInterceptor faultyInterceptor() {
			return (task, headers, invocation) -> {
				trip(Step.INTERCEPTOR);
				invocation.proceed();
			};
		}

	}

	static class Handlers {

		private final JdbcClient jdbc;

		Handlers(JdbcClient jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "transactional")
		void transactional(Job job, TaskContext context) {
			handle(job, context);
		}

		@TaskHandler(queue = "grouped")
		void grouped(Job job, TaskContext context) {
			handle(job, context);
		}

		@TaskHandler(queue = "batched", completion = TaskHandler.Completion.BATCHED)
		void batched(Job job, TaskContext context) {
			handle(job, context);
		}

		private void handle(Job job, TaskContext context) {
			handlerRuns.computeIfAbsent(job.name(), (name) -> new AtomicInteger()).incrementAndGet();
			trip(Step.HANDLER);
			this.jdbc.sql("INSERT INTO effect (task) VALUES (:name)").param("name", job.name()).update();
			if (job.failFirst() && context.attempt() == 1) {
				throw new IllegalStateException("fails on its first attempt");
			}
			if (TransactionSynchronizationManager.isSynchronizationActive()) {
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public void beforeCommit(boolean readOnly) {
						trip(Step.COMPLETION);
					}

					@Override
					public void afterCommit() {
						trip(Step.AFTER_COMMIT);
					}

				});
			}
		}

	}

}
