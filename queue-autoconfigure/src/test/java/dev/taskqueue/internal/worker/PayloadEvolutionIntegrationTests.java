package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import com.fasterxml.jackson.annotation.JsonAlias;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A payload written by an older (or newer) version of its type: by default Jackson reads what it can, unknown fields
 * ignored and missing ones as null or 0, and the handler runs; with {@code taskqueue.strict-payload=true} such a task
 * goes straight to the dead letters, saying which property did not fit (docs/payloads.md).
 */
class PayloadEvolutionIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void byDefaultRenamedAndMissingFieldsAreReadAsNullOrZero() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class))) {
			Handler handler = context.getBean(Handler.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			// Written when the fields were called title and qty, and weight was not there yet.
			taskQueue.enqueue("shipments", Map.of("title", "renamed", "qty", 3));
			taskQueue.enqueue("parcels", Map.of("label", "old", "grams", 250));
			Await.until("the tasks ran", WAIT, () -> handler.received.size() == 1 && handler.parcels.size() == 1);
			assertThat(handler.received).containsExactly(new Shipment(null, null));
			// Renamed with an alias for the old name: old and new payloads both read.
			taskQueue.enqueue("aliased", Map.of("title", "old name", "count", 1));
			taskQueue.enqueue("aliased", new Aliased("new name", 2));
			Await.until("the aliased tasks ran", WAIT, () -> handler.aliased.size() == 2);
			assertThat(handler.aliased).containsExactlyInAnyOrder(new Aliased("old name", 1), new Aliased("new name", 2));
			assertThat(handler.parcels).singleElement().satisfies((parcel) -> {
				assertThat(parcel.label).isEqualTo("old");
				assertThat(parcel.weight).isZero();
			});
			assertThat(context.getBean(JdbcTemplate.class)
				.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
		}
	}

	@Test
	void strictPayloadSendsUnknownOrMissingPropertiesToTheDeadLetters() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.strict-payload=true")) {
			Handler handler = context.getBean(Handler.class);
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			UUID unknown = taskQueue.enqueue("shipments", Map.of("name", "a", "count", 1, "colour", "red"));
			UUID missing = taskQueue.enqueue("shipments", Map.of("name", "b"));
			taskQueue.enqueue("shipments", new Shipment("fits", 2));
			Await.until("both misfits are dead", WAIT,
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class) == 2);
			Await.until("the task that fits ran", WAIT, () -> handler.received.size() == 1);
			assertThat(handler.received).containsExactly(new Shipment("fits", 2));
			String start = "java.lang.IllegalArgumentException: Payload cannot be read as " + Shipment.class.getName()
					+ " for bean 'handler' method Handler.ship(Shipment): ";
			assertThat(error(jdbc, unknown)).startsWith(start).contains("Unrecognized property \"colour\"");
			assertThat(error(jdbc, missing)).startsWith(start).contains("Missing creator property 'count'");
			assertThat(jdbc.queryForList("SELECT attempts FROM taskqueue_dead_task", Integer.class))
				.as("no retry: the payload will not fit later either")
				.containsOnly(1);
		}
	}

	private static String error(JdbcTemplate jdbc, UUID id) {
		return jdbc.queryForObject("SELECT error FROM taskqueue_dead_task WHERE id = ?", String.class, id);
	}

	record Shipment(String name, Integer count) {
	}

	record Aliased(@JsonAlias("title") String name, int count) {
	}

	/** A class with fields rather than a record: a missing primitive keeps its default, 0. */
	static class Parcel {

		public String label;

		public int weight;

	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		Handler handler() {
			return new Handler();
		}

	}

	static class Handler {

		final List<Shipment> received = new CopyOnWriteArrayList<>();

		final List<Parcel> parcels = new CopyOnWriteArrayList<>();

		final List<Aliased> aliased = new CopyOnWriteArrayList<>();

		@TaskHandler(queue = "aliased")
		void alias(Aliased payload) {
			this.aliased.add(payload);
		}

		@TaskHandler(queue = "shipments")
		void ship(Shipment shipment) {
			this.received.add(shipment);
		}

		@TaskHandler(queue = "parcels")
		void send(Parcel parcel) {
			this.parcels.add(parcel);
		}

	}

}
