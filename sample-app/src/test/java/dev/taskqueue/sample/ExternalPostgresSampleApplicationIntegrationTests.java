package dev.taskqueue.sample;

import dev.taskqueue.testing.AutoConfigureTaskQueueDatabase;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The same tests on a new database of the PostgreSQL server that {@code TASKQUEUE_TEST_JDBC_URL} points at, which
 * {@link AutoConfigureTaskQueueDatabase} uses when it is set: the sample's own embedded PostgreSQL backs off for a
 * configured {@code spring.datasource.url}.
 */
@EnabledIfEnvironmentVariable(named = "TASKQUEUE_TEST_JDBC_URL", matches = ".+")
@AutoConfigureTaskQueueDatabase
class ExternalPostgresSampleApplicationIntegrationTests extends SampleApplicationIntegrationTests {

}
