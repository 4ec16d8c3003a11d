package dev.taskqueue.sample;

import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.context.annotation.Import;

/**
 * The same tests on a PostgreSQL container; skipped where there is no Docker.
 */
@Testcontainers(disabledWithoutDocker = true)
@Import(ContainersConfig.class)
class TestcontainersSampleApplicationIntegrationTests extends SampleApplicationIntegrationTests {

}
