package com.example.signup;

import dev.taskqueue.testing.TaskQueueTester;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.transaction.annotation.Transactional;

// docs/testing.md, "With Docker: Testcontainers". Skipped where no Docker engine runs (as in CI here).

@SpringBootTest(properties = "taskqueue.worker.enabled=false")
@Testcontainers(disabledWithoutDocker = true)   // skipped, not failed, where there is no Docker engine
@Transactional
class ContainerTests {

    @Container
    @ServiceConnection
    static PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:18-alpine");

    @Autowired Signups signups;
    @Autowired TaskQueueTester tester;

    @Test
    void welcomesNewUsers() {
        signups.signUp("ada@example.com");
        tester.assertEnqueued("welcome-emails", new WelcomeEmail("ada@example.com"));
        tester.runAll().assertAllCompleted();
    }
}
