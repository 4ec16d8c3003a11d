package dev.taskqueue.sample;

import java.util.UUID;

import dev.taskqueue.testing.TaskQueueTester;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.transaction.annotation.Transactional;

/**
 * The Testcontainers route of docs/testing.md, as written there, so that the snippet is known to compile and run:
 * a PostgreSQL container as the test's database through {@code @ServiceConnection}; skipped without Docker.
 */
@SpringBootTest(properties = "taskqueue.worker.enabled=false")
@Testcontainers(disabledWithoutDocker = true)
@Transactional
class ContainerSignupServiceIntegrationTests {

	@Container
	@ServiceConnection
	static PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:18-alpine");

	@Autowired
	SignupService signups;

	@Autowired
	TaskQueueTester tester;

	@Test
	void signUpSendsAWelcomeEmail() {
		UUID id = this.signups.signUp("ada@example.com");
		this.tester.assertEnqueued("welcome-emails", new WelcomeEmail(id, "ada@example.com"));
		this.tester.runAll().assertAllCompleted();
	}

}
