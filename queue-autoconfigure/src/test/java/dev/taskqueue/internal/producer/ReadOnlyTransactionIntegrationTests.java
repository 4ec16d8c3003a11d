package dev.taskqueue.internal.producer;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Enqueueing in a read-only transaction is refused before any SQL, with a message that says why and what to do,
 * instead of PostgreSQL's {@code cannot execute INSERT in a read-only transaction}: nothing is written, and the
 * caller's transaction goes on.
 */
class ReadOnlyTransactionIntegrationTests {

	private static final String MESSAGE = " was called in a read-only transaction (such as @Transactional(readOnly "
			+ "= true)), which cannot write the task; nothing was enqueued. Call it in a read-write transaction: drop "
			+ "readOnly = true from the @Transactional around the call, or move the call to a method whose "
			+ "transaction is not read-only";

	private static ConfigurableApplicationContext context;

	private static TaskQueue taskQueue;

	private static JdbcTemplate jdbc;

	private static DataSourceTransactionManager transactions;

	@BeforeAll
	static void start() {
		String url = TestDatabase.createDatabase();
		// No worker: the tasks stay in the table for the test to count.
		context = TestApplications.start(url, List.of(Handlers.class), "taskqueue.worker.enabled=false");
		taskQueue = context.getBean(TaskQueue.class);
		jdbc = context.getBean(JdbcTemplate.class);
		transactions = context.getBean(DataSourceTransactionManager.class);
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@Test
	void everyWriteIsRefusedInAReadOnlyTransactionAndTheTransactionGoesOn() {
		Map<String, Consumer<TaskQueue>> writes = Map.of("enqueue", (queue) -> queue.enqueue("emails", "a"),
				"offer", (queue) -> queue.offer(TaskRequest.of("emails", "a")), "enqueueAll",
				(queue) -> queue.enqueueAll(List.of(TaskRequest.of("emails", "a"))), "offerAll",
				(queue) -> queue.offerAll(List.of(TaskRequest.of("emails", "a"))), "publish",
				(queue) -> queue.publish("news", "a"), "enqueueBatch",
				(queue) -> queue.enqueueBatch(List.of(TaskRequest.of("emails", "a")), TaskRequest.of("emails", "b")));
		TransactionTemplate readOnly = new TransactionTemplate(transactions);
		readOnly.setReadOnly(true);
		writes.forEach((operation, write) -> {
			Integer afterRefusal = readOnly.execute((status) -> {
				assertThatIllegalStateException().isThrownBy(() -> write.accept(taskQueue))
					.withMessage("TaskQueue." + operation + MESSAGE);
				// PostgreSQL would refuse this too had the enqueue reached it and failed the transaction.
				return jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class);
			});
			assertThat(afterRefusal).as(operation).isZero();
		});
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
	}

	@Test
	void aReadOnlyHintWithoutTransactionDoesNotStopAnEnqueue() {
		// SUPPORTS outside a transaction starts none: the connection is not read-only, and the enqueue commits.
		TransactionTemplate supports = new TransactionTemplate(transactions);
		supports.setReadOnly(true);
		supports.setPropagationBehavior(TransactionDefinition.PROPAGATION_SUPPORTS);
		int before = jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class);
		supports.executeWithoutResult((status) -> taskQueue.enqueue("emails", "fine"));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isEqualTo(before + 1);
		jdbc.update("DELETE FROM taskqueue_task");
	}

	@Test
	void aReadWriteTransactionEnqueues() {
		new TransactionTemplate(transactions).executeWithoutResult((status) -> taskQueue.enqueue("emails", "fine"));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isOne();
		jdbc.update("DELETE FROM taskqueue_task");
	}

	static class Handlers {

		@TaskHandler(queue = "emails", topics = "news")
		void email(String payload) {
		}

	}

}
