package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Listener beans hear every step of a task; interceptor beans wrap every handler call, in order; a listener that
 * throws changes nothing for the task.
 */
class ListenerAndInterceptorIntegrationTests {

	static final List<String> events = new CopyOnWriteArrayList<>();

	@Test
	void listenersHearEveryStepAndInterceptorsWrapTheHandlerInOrder() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.queues.events.max-attempts=2")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			UUID ok = taskQueue.enqueue("events", "ok");
			Await.until("the task completes", Duration.ofSeconds(20), () -> events.contains("completed " + ok));
			// The enqueue commits before its listener hears of it, so the worker may start the task first.
			assertThat(events).contains("enqueued events 1");
			assertThat(events).filteredOn((event) -> !event.startsWith("enqueued"))
				.containsExactly("started " + ok, "outer before " + ok, "inner before " + ok, "handler " + ok,
						"inner after " + ok, "outer after " + ok, "completed " + ok);
			events.clear();

			UUID failing = taskQueue.enqueueAll(List.of(TaskRequest.of("events", "fail"))).get(0);
			Await.until("the task is dead", Duration.ofSeconds(20), () -> events.contains("dead " + failing));
			assertThat(events).filteredOn((event) -> event.startsWith("retry") || event.startsWith("dead"))
				.containsExactly("retry " + failing, "dead " + failing);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		EventsHandler eventsHandler() {
			return new EventsHandler();
		}

		@Bean
		TaskQueueListener recordingListener() {
			return new TaskQueueListener() {

				@Override
				public void enqueued(String queue, int count) {
					events.add("enqueued " + queue + " " + count);
				}

				@Override
				public void started(TaskContext task, Duration pickupLatency) {
					assertThat(pickupLatency.isNegative()).isFalse();
					events.add("started " + task.id());
				}

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
		TaskQueueListener throwingListener() {
			return new TaskQueueListener() {

				@Override
				public void started(TaskContext task, Duration pickupLatency) {
					throw new IllegalStateException("a broken listener");
				}

			};
		}

		@Bean
		@Order(1)
		TaskHandlerInterceptor outer() {
			return (task, headers, invocation) -> {
				events.add("outer before " + task.id());
				invocation.proceed();
				events.add("outer after " + task.id());
			};
		}

		@Bean
		@Order(2)
		TaskHandlerInterceptor inner() {
			return (task, headers, invocation) -> {
				assertThat(headers).isNotNull();
				events.add("inner before " + task.id());
				invocation.proceed();
				events.add("inner after " + task.id());
			};
		}

	}

	static class EventsHandler {

		@TaskHandler(queue = "events")
		void handle(String payload, TaskContext context) {
			if (payload.equals("fail")) {
				throw new IllegalStateException("fails");
			}
			events.add("handler " + context.id());
		}

	}

}
