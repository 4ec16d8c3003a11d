package dev.taskqueue.testing;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Creates a database for the application context being started and points {@code spring.datasource.*} at it.
 * <p>
 * The database is created here, when the context starts, not when the test class is read: the TestContext framework
 * caches contexts, so one database per context is one per cached context, and a class that reuses a context reuses
 * its database. For the same reason every instance equals every other: the customizer must not make two otherwise
 * equal configurations look different to the context cache.
 */
final class TaskQueueDatabaseContextCustomizer implements ContextCustomizer {

	static final String PROPERTY_SOURCE_NAME = "taskQueueTestDatabase";

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		TaskQueueTestDatabases.Database database = TaskQueueTestDatabases.create();
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.datasource.url", database.url());
		properties.put("spring.datasource.username", database.username());
		properties.put("spring.datasource.password", database.password());
		// An application may name a wrapping driver (p6spy and the like) whose URLs look different.
		properties.put("spring.datasource.driver-class-name", "org.postgresql.Driver");
		// First: above application.yml, profiles, environment variables, system properties and the test's own
		// properties, which all come earlier; the point is that nothing the application says can reach its database.
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE_NAME, properties));
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other != null && other.getClass() == getClass();
	}

	@Override
	public int hashCode() {
		return getClass().hashCode();
	}

}
