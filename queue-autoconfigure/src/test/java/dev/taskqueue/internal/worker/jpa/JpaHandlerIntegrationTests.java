package dev.taskqueue.internal.worker.jpa;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Id;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Table;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In an application that uses JPA, a handler's entities are flushed and committed in the same transaction as the
 * task's completion, and rolled back with it.
 */
class JpaHandlerIntegrationTests {

	@Test
	void entitiesPersistedByAHandlerCommitWithTheCompletionOnly() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(JpaConfig.class), "spring.jpa.hibernate.ddl-auto=create",
				"taskqueue.queues.notes.max-attempts=2")) {
			assertThat(context.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			UUID kept = taskQueue.enqueue("notes", "keep");
			UUID failed = taskQueue.enqueue("notes", "fail");
			Await.until("both tasks are settled", Duration.ofSeconds(20),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForList("SELECT task_id FROM note", UUID.class)).containsExactly(kept);
			assertThat(jdbc.queryForList("SELECT id FROM taskqueue_dead_task", UUID.class)).containsExactly(failed);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(HibernateJpaAutoConfiguration.class)
	@EntityScan(basePackageClasses = Note.class)
	static class JpaConfig {

		@Bean
		NoteHandler noteHandler() {
			return new NoteHandler();
		}

	}

	static class NoteHandler {

		@PersistenceContext
		private EntityManager entityManager;

		@TaskHandler(queue = "notes")
		void handle(String payload, TaskContext context) {
			this.entityManager.persist(new Note(context.id()));
			this.entityManager.flush();
			if (payload.equals("fail")) {
				throw new IllegalStateException("fails after flushing its entity");
			}
		}

	}

	@Entity
	@Table(name = "note")
	public static class Note {

		@Id
		private UUID taskId;

		protected Note() {
		}

		Note(UUID taskId) {
			this.taskId = taskId;
		}

	}

}
