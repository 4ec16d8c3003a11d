package dev.taskqueue.internal.worker.jpa;

import java.util.List;
import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.internal.worker.jpa.JpaHandlerIntegrationTests.JpaConfig;
import dev.taskqueue.internal.worker.jpa.JpaHandlerIntegrationTests.Note;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In an application that uses JPA, what the application asks of TaskQueue inside its own transaction (a
 * {@link JpaTransactionManager}'s) commits and rolls back with the application's entities: enqueues of every kind,
 * and the operations' changes.
 */
class JpaCallerTransactionIntegrationTests {

	@Test
	void enqueuesAndOperationsJoinTheCallersJpaTransaction() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(JpaConfig.class), "spring.jpa.hibernate.ddl-auto=create", "taskqueue.worker.enabled=false")) {
			PlatformTransactionManager manager = context.getBean(PlatformTransactionManager.class);
			assertThat(manager).isInstanceOf(JpaTransactionManager.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			EntityManager entities = context.getBean(EntityManager.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			UUID waiting = taskQueue.enqueue("jpa-kept", "waits");
			TransactionTemplate transaction = new TransactionTemplate(manager);
			for (boolean commit : new boolean[] { false, true }) {
				transaction.executeWithoutResult((status) -> {
					entities.persist(new Note(UUID.randomUUID()));
					taskQueue.enqueue("jpa-one", "one");
					taskQueue.enqueueAll(List.of(TaskRequest.of("jpa-all", "a"), TaskRequest.of("jpa-all", "b")));
					taskQueue.enqueueBatch(List.of(TaskRequest.of("jpa-batch", "part")),
							TaskRequest.of("jpa-batch", "then"));
					operations.pause("jpa-kept");
					assertThat(operations.cancel(waiting)).isTrue();
					if (!commit) {
						status.setRollbackOnly();
					}
				});
				int expected = commit ? 1 : 0;
				assertThat(jdbc.queryForObject("SELECT count(*) FROM note", Integer.class)).isEqualTo(expected);
				assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = 'jpa-one'",
						Integer.class)).as("enqueue, commit " + commit).isEqualTo(expected);
				assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = 'jpa-all'",
						Integer.class)).as("enqueueAll, commit " + commit).isEqualTo(2 * expected);
				assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_batch", Integer.class))
					.as("enqueueBatch, commit " + commit).isEqualTo(expected);
				assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class,
						waiting)).as("cancel, commit " + commit).isEqualTo(1 - expected);
				assertThat(operations.queueStats().stream().filter((q) -> q.queue().equals("jpa-kept")).findFirst()
					.map(TaskQueueOperations.QueueStats::paused)
					.orElse(false)).as("pause, commit " + commit).isEqualTo(commit);
			}
		}
	}

}
