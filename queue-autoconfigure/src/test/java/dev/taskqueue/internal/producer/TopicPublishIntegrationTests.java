package dev.taskqueue.internal.producer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.PublishResult;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code TaskQueue.publish}: one task on every subscribed queue, in the caller's transaction; subscriptions that
 * outlive the subscribing application; unsubscribing by dropping a topic from the annotation.
 */
class TopicPublishIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	/** Runs per queue and task id. */
	static final Map<String, Map<UUID, AtomicInteger>> runs = new ConcurrentHashMap<>();

	@BeforeEach
	void clear() {
		runs.clear();
	}

	@Test
	void publishReachesEverySubscribedQueueOnceAndRollsBackWithTheTransaction() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Subscribers.class))) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			TransactionTemplate transaction = new TransactionTemplate(
					context.getBean(DataSourceTransactionManager.class));
			transaction.executeWithoutResult((status) -> {
				taskQueue.publish("order-placed", Map.of("order", 1));
				status.setRollbackOnly();
			});
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();

			PublishResult result = transaction.execute((status) -> taskQueue.publish("order-placed",
					Map.of("order", 2)));
			assertThat(result.count()).isEqualTo(3);
			assertThat(result.tasks().keySet()).containsExactly("billing", "emails", "shipping");
			assertThat(result.tasks().values()).doesNotHaveDuplicates();
			Await.until("the three tasks are handled", WAIT, () -> handled() == 3);
			Await.until("no task is left", WAIT,
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(handled()).isEqualTo(3);
			assertThat(runs).containsOnlyKeys("billing", "emails", "shipping");
			result.tasks().forEach((queue, id) -> assertThat(runs.get(queue)).containsOnlyKeys(id)
				.allSatisfy((task, count) -> assertThat(count).hasValue(1)));
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
		}
	}

	@Test
	void aTopicWithoutSubscriberEnqueuesNothingAndIsNoError() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Subscribers.class))) {
			PublishResult result = context.getBean(TaskQueue.class).publish("nobody-listens", "hello");
			assertThat(result.count()).isZero();
			assertThat(result.tasks()).isEmpty();
			assertThat(new JdbcTemplate(new DriverManagerDataSource(url))
				.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
		}
	}

	@Test
	void aSubscriberThatIsDownWhenTheTopicIsPublishedGetsItsTaskOnceItStarts() {
		String url = TestDatabase.createDatabase();
		TestApplications.start(url, List.of(Subscribers.class)).close();
		PublishResult result;
		try (ConfigurableApplicationContext producer = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			result = producer.getBean(TaskQueue.class).publish("order-placed", Map.of("order", 3));
		}
		assertThat(result.count()).isEqualTo(3);
		assertThat(handled()).isZero();
		try (ConfigurableApplicationContext subscriber = TestApplications.start(url, List.of(Subscribers.class))) {
			Await.until("the three tasks are handled", WAIT, () -> handled() == 3);
			assertThat(runs).containsOnlyKeys("billing", "emails", "shipping");
		}
	}

	@Test
	void aTopicDroppedFromTheHandlerIsUnsubscribedWhenItStartsAndOtherQueuesAreLeftAlone() {
		String url = TestDatabase.createDatabase();
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		TestApplications.start(url, List.of(Subscribers.class)).close();
		try (ConfigurableApplicationContext changed = TestApplications.start(url, List.of(BillingWithoutTopic.class))) {
			assertThat(jdbc.queryForList("SELECT queue FROM taskqueue_topic_subscription WHERE topic = 'order-placed' "
					+ "ORDER BY queue", String.class)).containsExactly("emails", "shipping");
			assertThat(jdbc.queryForList("SELECT topic FROM taskqueue_topic_subscription WHERE queue = 'billing'",
					String.class)).containsExactly("invoice-due");
			assertThat(changed.getBean(TaskQueue.class).publish("order-placed", "x").tasks()).containsOnlyKeys("emails",
					"shipping");
		}
	}

	@Test
	void anInvalidTopicIsRefusedBeforeAnySql() {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(),
				"taskqueue.worker.enabled=false")) {
			assertThatIllegalArgumentException().isThrownBy(() -> context.getBean(TaskQueue.class).publish("a b", 1))
				.withMessage("topic must be 1 to 100 letters, digits, '.', '_', '-' or ':' but was 'a b'");
		}
	}

	private static int handled() {
		return runs.values().stream().flatMap((byId) -> byId.values().stream()).mapToInt(AtomicInteger::get).sum();
	}

	static void ran(TaskContext context) {
		runs.computeIfAbsent(context.queue(), (queue) -> new ConcurrentHashMap<>())
			.computeIfAbsent(context.id(), (id) -> new AtomicInteger())
			.incrementAndGet();
	}

	@Configuration(proxyBeanMethods = false)
	static class Subscribers {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	static class Handlers {

		@TaskHandler(queue = "billing", topics = { "order-placed", "invoice-due" })
		void bill(Map<String, Integer> order, TaskContext context) {
			ran(context);
		}

		@TaskHandler(queue = "shipping", topics = "order-placed")
		void ship(Map<String, Integer> order, TaskContext context) {
			ran(context);
		}

		@TaskHandler(queue = "emails", topics = "${app.order-topic:order-placed}")
		void mail(Map<String, Integer> order, TaskContext context) {
			ran(context);
		}

		@TaskHandler(queue = "audit")
		void audit(Map<String, Integer> order, TaskContext context) {
			ran(context);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BillingWithoutTopic {

		@Bean
		Billing billing() {
			return new Billing();
		}

	}

	static class Billing {

		@TaskHandler(queue = "billing", topics = "invoice-due")
		void bill(Object order, TaskContext context) {
			ran(context);
		}

	}

}
