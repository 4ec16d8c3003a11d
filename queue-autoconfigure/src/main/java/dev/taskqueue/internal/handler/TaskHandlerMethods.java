package dev.taskqueue.internal.handler;

import java.lang.reflect.Method;
import java.util.Map;

import dev.taskqueue.TaskHandler;

import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Finds the {@link TaskHandler @TaskHandler} methods of a class, the one way the scanning, the lazy-initialization
 * filter and the AOT processing all look for them, so that they never disagree on which methods are handlers.
 */
final class TaskHandlerMethods {

	private TaskHandlerMethods() {
	}

	/** The annotated methods of {@code type}, including those it inherits, each with its merged annotation. */
	static Map<Method, TaskHandler> find(Class<?> type) {
		if (!AnnotationUtils.isCandidateClass(type, TaskHandler.class)) {
			return Map.of();
		}
		return MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<TaskHandler>) (
				method) -> AnnotatedElementUtils.findMergedAnnotation(method, TaskHandler.class));
	}

}
