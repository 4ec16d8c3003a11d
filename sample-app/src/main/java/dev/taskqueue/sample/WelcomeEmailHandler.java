package dev.taskqueue.sample;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Sends welcome emails (pretends to) and records that on the signup, in the task's transaction.
 */
@Component
public class WelcomeEmailHandler {

	private static final Logger logger = LoggerFactory.getLogger(WelcomeEmailHandler.class);

	private final JdbcClient jdbc;

	public WelcomeEmailHandler(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@TaskHandler(queue = "welcome-emails")
	public void send(WelcomeEmail email, TaskContext context) {
		int updated = this.jdbc.sql("UPDATE signup SET welcome_sent_at = now() WHERE id = ?")
			.param(email.signupId())
			.update();
		if (updated == 0) {
			throw new NonRetryableTaskException("There is no signup " + email.signupId());
		}
		logger.info("Sending welcome email to {} (task {}, attempt {})", email.address(), context.id(),
				context.attempt());
	}

}
