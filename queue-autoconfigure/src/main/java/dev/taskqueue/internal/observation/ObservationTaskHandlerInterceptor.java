package dev.taskqueue.internal.observation;

import java.util.Map;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandlerInterceptor;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.core.Ordered;

/**
 * Observes every handler as {@code taskqueue.handle}, continuing the trace whose context was stored with the task
 * at enqueue. It is the outermost interceptor, so the interceptors of the application (MDC, for instance) already
 * see the handler's trace.
 */
class ObservationTaskHandlerInterceptor implements TaskHandlerInterceptor, Ordered {

	private final ObservationRegistry registry;

	ObservationTaskHandlerInterceptor(ObservationRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void intercept(TaskContext task, Map<String, String> headers, Invocation invocation) throws Exception {
		Observation observation = TaskQueueObservations.handle(task, headers, this.registry).start();
		try (Observation.Scope scope = observation.openScope()) {
			invocation.proceed();
		}
		catch (Exception | Error ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
