package dev.taskqueue.sample;

import java.util.UUID;

import dev.taskqueue.TaskQueue;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Signs users up: stores the signup and enqueues its welcome email in one transaction.
 */
@Service
public class SignupService {

	private final JdbcClient jdbc;

	private final TaskQueue taskQueue;

	public SignupService(JdbcClient jdbc, TaskQueue taskQueue) {
		this.jdbc = jdbc;
		this.taskQueue = taskQueue;
	}

	/**
	 * Signs {@code email} up and returns the new signup's id.
	 * @throws org.springframework.dao.DuplicateKeyException if {@code email} has signed up before
	 */
	@Transactional
	public UUID signUp(String email) {
		UUID id = UUID.randomUUID();
		// The task is enqueued first on purpose: when the insert then fails, the rollback takes the task with it.
		this.taskQueue.enqueue("welcome-emails", new WelcomeEmail(id, email));
		this.jdbc.sql("INSERT INTO signup (id, email) VALUES (?, ?)").params(id, email).update();
		return id;
	}

}
