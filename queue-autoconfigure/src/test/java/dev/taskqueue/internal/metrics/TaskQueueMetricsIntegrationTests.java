package dev.taskqueue.internal.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.autoconfigure.TaskQueueMetricsAutoConfiguration;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every meter's exact value after a known workload, with Spring Boot's metrics auto-configuration and a simple
 * registry, on a real PostgreSQL.
 */
class TaskQueueMetricsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static ConfigurableApplicationContext context;

	private static TaskQueue taskQueue;

	private static MeterRegistry meters;

	private static JdbcTemplate jdbc;

	private static Handlers handlers;

	@BeforeAll
	static void start() {
		context = TestApplications.start(TestDatabase.createDatabase(), List.of(Config.class),
				"taskqueue.queues.m-dead.max-attempts=2", "taskqueue.metrics.refresh-interval=100ms",
				"management.metrics.distribution.percentiles.taskqueue.tasks=0.5,0.99");
		taskQueue = context.getBean(TaskQueue.class);
		meters = context.getBean(MeterRegistry.class);
		jdbc = context.getBean(JdbcTemplate.class);
		handlers = context.getBean(Handlers.class);
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@Test
	void countersAndTimersCountEachAttemptUnderItsOutcome() {
		taskQueue.enqueueAll(List.of(TaskRequest.of("m-ok", "a"), TaskRequest.of("m-ok", "b"),
				TaskRequest.of("m-ok", "c")));
		taskQueue.enqueue("m-flaky", "fails once");
		taskQueue.enqueue("m-dead", "always fails");
		taskQueue.enqueue("m-unreadable", Map.of("not", "a number"));
		Await.until("every task is settled", WAIT, () -> count("taskqueue.tasks.processed", "m-ok", "completed") == 3
				&& count("taskqueue.tasks.processed", "m-flaky", "completed") == 1
				&& count("taskqueue.tasks.processed", "m-dead", "dead") == 1
				&& count("taskqueue.tasks.processed", "m-unreadable", "dead") == 1);

		assertThat(count("taskqueue.tasks.enqueued", "m-ok", null)).isEqualTo(3);
		assertThat(count("taskqueue.tasks.enqueued", "m-flaky", null)).isEqualTo(1);
		assertThat(count("taskqueue.tasks.processed", "m-flaky", "retried")).isEqualTo(1);
		assertThat(count("taskqueue.tasks.processed", "m-dead", "retried")).isEqualTo(1);
		assertThat(count("taskqueue.tasks.processed", "m-ok", "retried")).isZero();
		assertThat(timer("taskqueue.tasks.duration", "m-ok", "completed").count()).isEqualTo(3);
		assertThat(timer("taskqueue.tasks.duration", "m-flaky", "retried").count()).isEqualTo(1);
		assertThat(timer("taskqueue.tasks.duration", "m-flaky", "completed").count()).isEqualTo(1);
		assertThat(timer("taskqueue.tasks.duration", "m-dead", "dead").count()).isEqualTo(1);
		// The unreadable payload never reached a handler: counted, not timed, and no pickup either.
		assertThat(Search.in(meters).name("taskqueue.tasks.duration").tag("queue", "m-unreadable").timers()).isEmpty();
		assertThat(timer("taskqueue.tasks.pickup.latency", "m-ok", null).count()).isEqualTo(3);
		assertThat(timer("taskqueue.tasks.pickup.latency", "m-flaky", null).count()).isEqualTo(2);
		assertThat(timer("taskqueue.tasks.pickup.latency", "m-dead", null).count()).isEqualTo(2);
		// Each m-ok handler sleeps 20 ms.
		assertThat(timer("taskqueue.tasks.duration", "m-ok", "completed").totalTime(TimeUnit.MILLISECONDS))
			.isGreaterThanOrEqualTo(3 * 20);
	}

	@Test
	void enqueueCountsOnlyWhenItsTransactionCommits() {
		TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
		assertThatThrownBy(() -> transaction.executeWithoutResult((status) -> {
			taskQueue.enqueue("m-tx", "rolled back");
			assertThat(count("taskqueue.tasks.enqueued", "m-tx", null)).isZero();
			throw new IllegalStateException("business failure");
		})).hasMessage("business failure");
		assertThat(count("taskqueue.tasks.enqueued", "m-tx", null)).isZero();
		transaction.executeWithoutResult((status) -> taskQueue
			.enqueueAll(List.of(TaskRequest.of("m-tx", "one"), TaskRequest.of("m-tx", "two"))));
		assertThat(count("taskqueue.tasks.enqueued", "m-tx", null)).isEqualTo(2);
	}

	@Test
	void percentilesAreConfiguredTheSpringBootWay() {
		taskQueue.enqueue("m-percentiles", "x");
		Await.until("the task completes", WAIT,
				() -> count("taskqueue.tasks.processed", "m-percentiles", "completed") == 1);
		assertThat(timer("taskqueue.tasks.duration", "m-percentiles", "completed").takeSnapshot().percentileValues())
			.hasSize(2);
		assertThat(timer("taskqueue.tasks.pickup.latency", "m-percentiles", null).takeSnapshot().percentileValues())
			.hasSize(2);
	}

	@Test
	void gaugesShowWhatEachQueueHoldsAfterTheNextRefresh() {
		// No handler for m-gauges here: its tasks stay where they are.
		taskQueue.enqueueAll(List.of(TaskRequest.of("m-gauges", "ready").withPriority(5),
				TaskRequest.of("m-gauges", "ready too").withRunAt(Instant.now().minusSeconds(90)),
				TaskRequest.of("m-gauges", "later").withDelay(Duration.ofHours(1))));
		jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, error) "
				+ "VALUES (?, 'm-gauges', '{}', 0, 5, now(), 'gone')", UUID.randomUUID());
		taskQueue.enqueue("m-block", "waits for the latch");
		Await.until("the gauges show it", WAIT, () -> gauge("taskqueue.queue.ready", "m-gauges") == 2
				&& gauge("taskqueue.queue.scheduled", "m-gauges") == 1 && gauge("taskqueue.queue.dead", "m-gauges") == 1
				&& gauge("taskqueue.queue.running", "m-block") == 1);
		assertThat(gauge("taskqueue.queue.running", "m-gauges")).isZero();
		assertThat(meters.get("taskqueue.queue.oldest.ready.age").tag("queue", "m-gauges").timeGauge()
			.value(TimeUnit.SECONDS)).isBetween(89.0, 150.0);
		handlers.release.countDown();
		Await.until("the running task is gone from the gauge", WAIT,
				() -> gauge("taskqueue.queue.running", "m-block") == 0);
		jdbc.update("DELETE FROM taskqueue_task WHERE queue = 'm-gauges'");
		Await.until("an emptied queue reads zero", WAIT, () -> gauge("taskqueue.queue.ready", "m-gauges") == 0
				&& gauge("taskqueue.queue.scheduled", "m-gauges") == 0);
		assertThat(meters.get("taskqueue.queue.oldest.ready.age").tag("queue", "m-gauges").timeGauge()
			.value(TimeUnit.SECONDS)).isZero();
		// Every queue with a handler here has its gauges, even before it has seen a task.
		assertThat(gauge("taskqueue.queue.ready", "m-idle")).isZero();
	}

	/**
	 * A task due centuries ago (written by SQL: enqueue refuses such a time) has a pickup latency beyond what a
	 * long of nanoseconds holds; the listener records it clamped instead of throwing, and the task runs.
	 */
	@Test
	void ancientDueTimeIsRecordedNotThrown() {
		UUID id = taskQueue.enqueue(TaskRequest.of("m-ancient", "from long ago").withDelay(Duration.ofHours(1)));
		jdbc.update("UPDATE taskqueue_task SET run_at = timestamptz '0001-01-01 00:00:00Z', "
				+ "enqueued_at = timestamptz '0001-01-01 00:00:00Z' WHERE id = ?", id);
		Await.until("the ancient task completed", WAIT,
				() -> count("taskqueue.tasks.processed", "m-ancient", "completed") == 1);
		Timer pickup = timer("taskqueue.tasks.pickup.latency", "m-ancient", null);
		assertThat(pickup).as("the pickup latency was recorded").isNotNull();
		assertThat(pickup.count()).isOne();
		assertThat(pickup.max(TimeUnit.DAYS)).isGreaterThan(100 * 365);
	}

	private static double count(String name, String queue, String outcome) {
		Search search = Search.in(meters).name(name).tag("queue", queue);
		Counter counter = ((outcome != null) ? search.tag("outcome", outcome) : search).counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static Timer timer(String name, String queue, String outcome) {
		Search search = Search.in(meters).name(name).tag("queue", queue);
		return ((outcome != null) ? search.tag("outcome", outcome) : search).timer();
	}

	private static double gauge(String name, String queue) {
		Gauge gauge = Search.in(meters).name(name).tag("queue", queue).gauge();
		return (gauge != null) ? gauge.value() : -1;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
			CompositeMeterRegistryAutoConfiguration.class, TaskQueueMetricsAutoConfiguration.class })
	static class Config {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	static class Handlers {

		final CountDownLatch release = new CountDownLatch(1);

		final AtomicInteger flakyRuns = new AtomicInteger();

		@TaskHandler(queue = "m-ok")
		void ok(String payload) throws InterruptedException {
			Thread.sleep(20);
		}

		@TaskHandler(queue = "m-flaky")
		void flaky(String payload) {
			if (this.flakyRuns.incrementAndGet() == 1) {
				throw new IllegalStateException("first run fails");
			}
		}

		@TaskHandler(queue = "m-dead")
		void dead(String payload) {
			throw new IllegalStateException("always fails");
		}

		@TaskHandler(queue = "m-unreadable")
		void unreadable(Integer payload) {
		}

		@TaskHandler(queue = "m-tx")
		void tx(String payload) {
		}

		@TaskHandler(queue = "m-percentiles")
		void percentiles(String payload, TaskContext context) {
		}

		@TaskHandler(queue = "m-block")
		void block(String payload) throws InterruptedException {
			this.release.await();
		}

		@TaskHandler(queue = "m-ancient")
		void ancient(String payload) {
		}

		@TaskHandler(queue = "m-idle")
		void idle(String payload) {
		}

	}

}
