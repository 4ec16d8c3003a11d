package dev.taskqueue.sample;

import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The same tests on a new database of the PostgreSQL server that {@code TASKQUEUE_TEST_JDBC_URL} points at.
 */
@EnabledIfEnvironmentVariable(named = TestDatabase.URL_VARIABLE, matches = ".+")
class ExternalPostgresSampleApplicationIntegrationTests extends SampleApplicationIntegrationTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

}
