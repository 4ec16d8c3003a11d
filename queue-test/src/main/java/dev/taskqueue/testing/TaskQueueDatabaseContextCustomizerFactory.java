package dev.taskqueue.testing;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Gives the application context of a test annotated with {@link AutoConfigureTaskQueueDatabase} a database of its
 * own. Registered in {@code META-INF/spring.factories}, where the TestContext framework finds it for every test.
 * <p>
 * {@link TestContextAnnotationUtils} rather than a plain annotation lookup: it follows {@code @Nested} classes to
 * their enclosing class, as the rest of the test's configuration does.
 */
public class TaskQueueDatabaseContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		return TestContextAnnotationUtils.hasAnnotation(testClass, AutoConfigureTaskQueueDatabase.class)
				? new TaskQueueDatabaseContextCustomizer() : null;
	}

}
