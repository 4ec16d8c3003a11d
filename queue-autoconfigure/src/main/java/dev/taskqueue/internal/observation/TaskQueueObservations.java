package dev.taskqueue.internal.observation;

import java.util.Map;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandlerInterceptor;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;

/**
 * The two observations of TaskQueue: {@code taskqueue.enqueue} around the insert of tasks, and
 * {@code taskqueue.handle} around a handler. Both carry the low-cardinality key {@code queue}; a global
 * {@link io.micrometer.observation.GlobalObservationConvention} for {@link EnqueueContext} or
 * {@link HandleContext} registered on the {@link ObservationRegistry} replaces the defaults here.
 */
public final class TaskQueueObservations {

	/** The name of the observation around an enqueue. */
	public static final String ENQUEUE = "taskqueue.enqueue";

	/** The name of the observation around a handler. */
	public static final String HANDLE = "taskqueue.handle";

	private static final ObservationConvention<EnqueueContext> ENQUEUE_CONVENTION = new EnqueueConvention();

	private static final ObservationConvention<HandleContext> HANDLE_CONVENTION = new HandleConvention();

	private TaskQueueObservations() {
	}

	/** The interceptor that observes each handler call as {@code taskqueue.handle} on {@code registry}. */
	public static TaskHandlerInterceptor handlerInterceptor(ObservationRegistry registry) {
		return new ObservationTaskHandlerInterceptor(registry);
	}

	/** An observation, not started, of enqueuing {@code count} tasks whose headers are {@code headers}. */
	public static Observation enqueue(String queue, int count, Map<String, String> headers,
			ObservationRegistry registry) {
		return Observation.createNotStarted(null, ENQUEUE_CONVENTION, () -> new EnqueueContext(queue, count, headers),
				registry);
	}

	/** An observation, not started, of handling {@code task}, enqueued with {@code headers}. */
	public static Observation handle(TaskContext task, Map<String, String> headers, ObservationRegistry registry) {
		return Observation.createNotStarted(null, HANDLE_CONVENTION, () -> new HandleContext(task, headers), registry);
	}

	private static final class EnqueueConvention implements ObservationConvention<EnqueueContext> {

		@Override
		public String getName() {
			return ENQUEUE;
		}

		@Override
		public String getContextualName(EnqueueContext context) {
			return "enqueue " + context.getQueue();
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(EnqueueContext context) {
			return KeyValues.of("queue", context.getQueue());
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(EnqueueContext context) {
			return KeyValues.of("taskqueue.task.count", String.valueOf(context.getCount()));
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof EnqueueContext;
		}

	}

	private static final class HandleConvention implements ObservationConvention<HandleContext> {

		@Override
		public String getName() {
			return HANDLE;
		}

		@Override
		public String getContextualName(HandleContext context) {
			return "handle " + context.getTask().queue();
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(HandleContext context) {
			return KeyValues.of("queue", context.getTask().queue());
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(HandleContext context) {
			return KeyValues.of("taskqueue.task.id", context.getTask().id().toString(), "taskqueue.task.attempt",
					String.valueOf(context.getTask().attempt()));
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof HandleContext;
		}

	}

}
