package dev.taskqueue.actuate;

import dev.taskqueue.ScheduleInfo;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The bodies of the {@code taskqueue} endpoint, which Jackson writes by reflection. Spring Boot registers the
 * declared return type of an operation, but most operations here return {@code WebEndpointResponse<Object>}: their
 * bodies must be named.
 */
class TaskQueueEndpointRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
				TaskQueueDescriptors.class.getDeclaredClasses());
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), ScheduleInfo.class,
				ScheduleEndpointActions.Triggered.class);
	}

}
