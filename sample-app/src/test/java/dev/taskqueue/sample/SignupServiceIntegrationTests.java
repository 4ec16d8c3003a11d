package dev.taskqueue.sample;

import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.testing.AutoConfigureTaskQueueDatabase;
import dev.taskqueue.testing.TaskQueueTester;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The signup and its welcome email, tested with {@link TaskQueueTester}: each test enqueues, checks what it
 * enqueued, runs the handler on the test's thread and checks its effect, all in the test's transaction, which rolls
 * back. The worker is off, as it should be in tests that run tasks themselves. The database is a new one of the
 * test's own, as an application's tests get it from {@code queue-test}.
 */
@SpringBootTest(properties = "taskqueue.worker.enabled=false")
@AutoConfigureTaskQueueDatabase
@Transactional
class SignupServiceIntegrationTests {

	@Autowired
	private SignupService signups;

	@Autowired
	private TaskQueue taskQueue;

	@Autowired
	private TaskQueueTester tester;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void signUpEnqueuesAWelcomeEmailThatTheHandlerRecords() {
		UUID id = this.signups.signUp("ada@example.com");
		this.tester.assertEnqueued("welcome-emails", new WelcomeEmail(id, "ada@example.com"));

		this.tester.runAll().assertAllCompleted();

		assertThat(this.jdbc.sql("SELECT welcome_sent_at IS NOT NULL FROM signup WHERE id = ?")
			.param(id)
			.query(Boolean.class)
			.single()).isTrue();
		this.tester.assertEnqueuedCount("welcome-emails", 0);
	}

	@Test
	void welcomeEmailForAnUnknownSignupGoesToTheDeadLetters() {
		this.taskQueue.enqueue("welcome-emails", new WelcomeEmail(UUID.randomUUID(), "nobody@example.com"));
		assertThat(this.tester.run("welcome-emails").deadLettered()).isOne();
		this.tester.assertEnqueuedCount("welcome-emails", 0);
	}

}
