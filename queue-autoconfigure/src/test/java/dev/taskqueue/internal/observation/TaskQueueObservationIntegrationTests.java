package dev.taskqueue.internal.observation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.autoconfigure.TaskQueueObservationAutoConfiguration;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trace context crosses the hop through the database: a propagating handler (standing in for Micrometer
 * Tracing's) writes it into the enqueue's carrier, the task keeps it in its headers, and the handle observation reads
 * it back.
 */
class TaskQueueObservationIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	static final List<Observation.Context> started = new CopyOnWriteArrayList<>();

	static final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

	static final List<String> seenByHandler = new CopyOnWriteArrayList<>();

	private static ConfigurableApplicationContext context;

	private static TaskQueue taskQueue;

	private static JdbcTemplate jdbc;

	@BeforeAll
	static void start() {
		context = TestApplications.start(TestDatabase.createDatabase(), List.of(Config.class),
				"taskqueue.queues.o-fails.max-attempts=1");
		taskQueue = context.getBean(TaskQueue.class);
		jdbc = context.getBean(JdbcTemplate.class);
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@Test
	void traceContextTravelsWithTheTaskFromEnqueueToHandler() {
		UUID id = taskQueue.enqueue("o-traced", "hello");
		Await.until("the handler ran", WAIT, () -> seenByHandler.contains(id + " trace-of-o-traced"));
		SenderContext<?> enqueue = only(SenderContext.class, "o-traced");
		assertThat(enqueue.getName()).isEqualTo("taskqueue.enqueue");
		assertThat(enqueue.getContextualName()).isEqualTo("enqueue o-traced");
		assertThat(enqueue.getLowCardinalityKeyValue("queue").getValue()).isEqualTo("o-traced");
		Await.until("the handle observation stopped", WAIT, () -> stoppedHandle(id) != null);
		HandleContext handle = stoppedHandle(id);
		assertThat(handle.getName()).isEqualTo("taskqueue.handle");
		assertThat(handle.getContextualName()).isEqualTo("handle o-traced");
		assertThat(handle.getCarrier()).containsEntry("traceparent", "trace-of-o-traced");
		assertThat(handle.getHighCardinalityKeyValue("taskqueue.task.id"))
			.isEqualTo(KeyValue.of("taskqueue.task.id", id.toString()));
		assertThat(handle.getError()).isNull();
	}

	@Test
	void headersAreStoredWithTheTaskAndCopiedToTheDeadLetters() {
		UUID id = taskQueue.enqueueAll(List.of(TaskRequest.of("o-fails", "boom"))).get(0);
		Await.until("the task is dead", WAIT, () -> jdbc
			.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class, id) == 1);
		assertThat(jdbc.queryForObject("SELECT headers ->> 'traceparent' FROM taskqueue_dead_task WHERE id = ?",
				String.class, id)).isEqualTo("trace-of-o-fails");
		Await.until("the failed handle observation stopped", WAIT,
				() -> stoppedHandle(id) != null && stoppedHandle(id).getError() != null);
	}

	@Test
	void applicationInterceptorsRunInsideTheHandleObservation() {
		UUID id = taskQueue.enqueue("o-traced", "inside");
		Await.until("the handler ran", WAIT, () -> seenByHandler.contains(id + " trace-of-o-traced"));
		assertThat(seenByHandler).contains(id + " interceptor saw the handle observation of " + id);
	}

	@Test
	void oneEnqueueObservationForABatchOnSeveralQueues() {
		// o-unhandled has no handler here: its task stays in the table to be looked at.
		List<UUID> ids = taskQueue
			.enqueueAll(List.of(TaskRequest.of("o-traced", "x"), TaskRequest.of("o-unhandled", "y")));
		Await.until("the first ran", WAIT, () -> seenByHandler.contains(ids.get(0) + " trace-of-multiple"));
		SenderContext<?> enqueue = only(SenderContext.class, "multiple");
		assertThat(enqueue.getHighCardinalityKeyValue("taskqueue.task.count").getValue()).isEqualTo("2");
		assertThat(jdbc.queryForObject("SELECT headers ->> 'traceparent' FROM taskqueue_task WHERE id = ?",
				String.class, ids.get(1))).isEqualTo("trace-of-multiple");
	}

	private static HandleContext stoppedHandle(UUID id) {
		return stopped.stream()
			.filter((context) -> context instanceof HandleContext handle && handle.getTask().id().equals(id))
			.map(HandleContext.class::cast)
			.findFirst()
			.orElse(null);
	}

	private static SenderContext<?> only(Class<?> type, String queue) {
		List<Observation.Context> found = started.stream()
			.filter((c) -> type.isInstance(c) && c.getLowCardinalityKeyValue("queue") != null
					&& c.getLowCardinalityKeyValue("queue").getValue().equals(queue))
			.toList();
		assertThat(found).isNotEmpty();
		return (SenderContext<?>) found.get(found.size() - 1);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(TaskQueueObservationAutoConfiguration.class)
	static class Config {

		@Bean
		ObservationRegistry observationRegistry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new PropagatingHandler());
			return registry;
		}

		@Bean
		TaskHandlerInterceptor recordingInterceptor(ObservationRegistry registry) {
			return (task, headers, invocation) -> {
				Observation current = registry.getCurrentObservation();
				if (current != null && current.getContext() instanceof HandleContext handle) {
					seenByHandler.add(task.id() + " interceptor saw the handle observation of "
							+ handle.getTask().id());
				}
				invocation.proceed();
			};
		}

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	/** What Micrometer Tracing's propagating handlers do, with a fake trace id that names the queue. */
	static class PropagatingHandler implements ObservationHandler<Observation.Context> {

		static final ThreadLocal<String> current = new ThreadLocal<>();

		@Override
		@SuppressWarnings("unchecked")
		public void onStart(Observation.Context context) {
			started.add(context);
			if (context instanceof SenderContext<?> sender) {
				String queue = sender.getLowCardinalityKeyValue("queue").getValue();
				((SenderContext<Map<String, String>>) sender).getSetter()
					.set((Map<String, String>) sender.getCarrier(), "traceparent", "trace-of-" + queue);
			}
			if (context instanceof ReceiverContext<?> receiver) {
				ReceiverContext<Map<String, String>> typed = (ReceiverContext<Map<String, String>>) receiver;
				current.set(typed.getGetter().get(typed.getCarrier(), "traceparent"));
			}
		}

		@Override
		public void onStop(Observation.Context context) {
			stopped.add(context);
			current.remove();
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	static class Handlers {

		@TaskHandler(queue = "o-traced")
		void traced(String payload, TaskContext context) {
			seenByHandler.add(context.id() + " " + PropagatingHandler.current.get());
		}

		@TaskHandler(queue = "o-fails")
		void fails(String payload) {
			throw new IllegalStateException(payload);
		}

	}

}
