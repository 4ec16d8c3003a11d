package dev.taskqueue.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Poison tasks in a queue (an unreadable payload, a handler that always throws, a {@link StackOverflowError}, failing
 * SQL, a transaction marked rollback-only) each end in the dead letters with an error a person can read, while the
 * good tasks of the same queue all complete, whether each task has a transaction of its own or shares one with
 * others (group commit).
 */
class PoisonTaskIntegrationTests {

	private static final int GOOD = 200;

	@ParameterizedTest(name = "group-commit-size={0}")
	@ValueSource(ints = { 1, 10 })
	void poisonTasksGoToTheDeadLettersAndGoodOnesKeepFlowing(int groupCommitSize) {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.queues.orders.max-attempts=2",
				"taskqueue.queues.orders.concurrency=3",
				"taskqueue.queues.orders.group-commit-size=" + groupCommitSize)) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE business (n int NOT NULL, task_id uuid NOT NULL)");
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			Map<String, UUID> poison = new LinkedHashMap<>();
			List<TaskRequest> good = new ArrayList<>();
			for (int n = 0; n < GOOD; n++) {
				good.add(TaskRequest.of("orders", new Order(n, "ok")));
			}
			taskQueue.enqueueAll(good.subList(0, GOOD / 2));
			poison.put("wrong type", taskQueue.enqueue("orders", Map.of("n", "not a number", "kind", "ok")));
			poison.put("not an object", taskQueue.enqueue("orders", List.of(1, 2, 3)));
			for (String kind : List.of("throws", "overflow", "bad-sql", "rollback-only")) {
				poison.put(kind, taskQueue.enqueue("orders", new Order(-1, kind)));
			}
			taskQueue.enqueueAll(good.subList(GOOD / 2, GOOD));

			Await.until("every task is done or dead", Duration.ofSeconds(60),
					() -> count(jdbc, "SELECT count(*) FROM taskqueue_task") == 0);
			assertThat(count(jdbc, "SELECT count(*) FROM business")).isEqualTo(GOOD);
			assertThat(count(jdbc, "SELECT count(DISTINCT n) FROM business WHERE n BETWEEN 0 AND ?", GOOD - 1))
				.isEqualTo(GOOD);
			assertThat(count(jdbc, "SELECT count(*) FROM taskqueue_dead_task")).isEqualTo(poison.size());
			String unreadable = "java.lang.IllegalArgumentException: Payload cannot be read as " + Order.class.getName()
					+ " for bean 'orderHandler' method OrderHandler.handle(Order, TaskContext): ";
			assertDead(jdbc, poison.get("wrong type"), 1, unreadable, "not a number");
			assertDead(jdbc, poison.get("not an object"), 1, unreadable, "");
			assertDead(jdbc, poison.get("throws"), 2, "java.lang.IllegalStateException: order -1 cannot be shipped\n",
					"OrderHandler.handle");
			assertDead(jdbc, poison.get("overflow"), 2, "java.lang.StackOverflowError\n", "OrderHandler.recurse");
			assertDead(jdbc, poison.get("bad-sql"), 2, "org.springframework.jdbc.BadSqlGrammarException: ",
					"relation \"no_such_table\" does not exist");
			assertDead(jdbc, poison.get("rollback-only"), 2,
					"org.springframework.transaction.UnexpectedRollbackException: Transaction rolled back because it "
							+ "has been marked as rollback-only\n", "");
			assertThat(count(jdbc, "SELECT count(*) FROM business WHERE n < 0"))
				.as("the rollback-only task's own write was rolled back").isZero();
		}
	}

	private static void assertDead(JdbcTemplate jdbc, UUID id, int attempts, String errorStart, String errorContains) {
		Map<String, Object> dead = jdbc.queryForMap("SELECT attempts, error FROM taskqueue_dead_task WHERE id = ?", id);
		assertThat(dead.get("attempts")).isEqualTo(attempts);
		assertThat((String) dead.get("error")).startsWith(errorStart).contains(errorContains);
	}

	private static int count(JdbcTemplate jdbc, String sql, Object... args) {
		return jdbc.queryForObject(sql, Integer.class, args);
	}

	record Order(int n, String kind) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Inventory inventory(JdbcTemplate jdbc) {
			return new Inventory(jdbc);
		}

		@Bean
		OrderHandler orderHandler(JdbcTemplate jdbc, Inventory inventory) {
			return new OrderHandler(jdbc, inventory);
		}

	}

	static class OrderHandler {

		private final JdbcTemplate jdbc;

		private final Inventory inventory;

		OrderHandler(JdbcTemplate jdbc, Inventory inventory) {
			this.jdbc = jdbc;
			this.inventory = inventory;
		}

		@TaskHandler(queue = "orders")
		void handle(Order order, TaskContext context) {
			switch (order.kind()) {
				case "ok" -> this.jdbc.update("INSERT INTO business (n, task_id) VALUES (?, ?)", order.n(),
						context.id());
				case "throws" -> throw new IllegalStateException("order " + order.n() + " cannot be shipped");
				case "overflow" -> recurse(0);
				case "bad-sql" -> this.jdbc.update("INSERT INTO no_such_table VALUES (1)");
				case "rollback-only" -> {
					try {
						this.inventory.reserve(order.n(), context.id());
					}
					catch (IllegalStateException ex) {
						// swallowed, but the shared transaction is already marked rollback-only
					}
				}
				default -> throw new IllegalArgumentException(order.kind());
			}
		}

		private static int recurse(int depth) {
			return recurse(depth + 1) + 1;
		}

	}

	static class Inventory {

		private final JdbcTemplate jdbc;

		Inventory(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Transactional
		public void reserve(int n, UUID taskId) {
			this.jdbc.update("INSERT INTO business (n, task_id) VALUES (?, ?)", n, taskId);
			throw new IllegalStateException("out of stock");
		}

	}

}
