package dev.taskqueue.internal.operations;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations.QueueLimitStats;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.autoconfigure.TaskQueueMetricsAutoConfiguration;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the limits of a queue hold back is its own count in the statistics, the endpoint's queue descriptor and a
 * gauge, with the limits themselves; a limited queue can be paused and resumed like any other.
 */
class QueueLimitsOperationsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void heldBackForASlotIsShownAndAPausedLimitedQueueResumes() throws InterruptedException {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.queues.gated.global-concurrency=1",
				"taskqueue.metrics.refresh-interval=100ms")) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			Handlers handlers = context.getBean(Handlers.class);
			assertThat(stats(operations, "gated").limits()).as("listed with its limits before it has tasks")
				.isEqualTo(new QueueLimitStats(1, null, null, 0, 0, null));
			context.getBean(TaskQueue.class)
				.enqueueAll(List.of(TaskRequest.of("gated", "a"), TaskRequest.of("gated", "b"),
						TaskRequest.of("gated", "c")));
			Await.until("one task runs", WAIT, () -> handlers.started.get() == 1);
			QueueStats stats = stats(operations, "gated");
			assertThat(stats.running()).isEqualTo(1);
			assertThat(stats.ready()).isEqualTo(2);
			assertThat(stats.limits()).isEqualTo(new QueueLimitStats(1, null, null, 0, 2, "global-concurrency"));
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			Await.until("the gauge shows the held-back tasks", WAIT,
					() -> heldBack(meters, "gated", "global-concurrency") == 2);
			assertThat(heldBack(meters, "gated", "rate-limit")).isZero();

			operations.pause("gated");
			assertThat(stats(operations, "gated").limits().heldBack()).as("the pause holds them, not the limit")
				.isZero();
			handlers.release.countDown();
			Await.until("the running task completes", WAIT, () -> handlers.completed.get() == 1);
			assertThat(handlers.started.get()).isEqualTo(1);
			operations.resume("gated");
			Await.until("the other two run after the resume", WAIT, () -> handlers.completed.get() == 3);
			assertThat(handlers.started.get()).isEqualTo(3);
			assertThat(handlers.peak.get()).isEqualTo(1);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			Await.until("every completion commits", WAIT,
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
		}
	}

	@Test
	void heldBackForTheRateIsShownWithTheStartsOfTheWindow() {
		try (ConfigurableApplicationContext context = TestApplications.start(TestDatabase.createDatabase(),
				List.of(Config.class), "taskqueue.queues.paced.rate-limit.limit=2",
				"taskqueue.queues.paced.rate-limit.period=1h")) {
			TaskQueueOperations operations = context.getBean(TaskQueueOperations.class);
			Handlers handlers = context.getBean(Handlers.class);
			context.getBean(TaskQueue.class)
				.enqueueAll(List.of(TaskRequest.of("paced", "a"), TaskRequest.of("paced", "b"),
						TaskRequest.of("paced", "c"), TaskRequest.of("paced", "d"), TaskRequest.of("paced", "e")));
			Await.until("two tasks complete", WAIT, () -> handlers.pacedCompleted.get() == 2);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			Await.until("both completions commit (a handler returns before its transaction does)", WAIT,
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 3);
			QueueStats stats = stats(operations, "paced");
			assertThat(stats.ready()).isEqualTo(3);
			assertThat(stats.running()).isZero();
			assertThat(stats.limits())
				.isEqualTo(new QueueLimitStats(null, 2, Duration.ofHours(1), 2, 3, "rate-limit"));
			assertThat(handlers.pacedCompleted.get()).isEqualTo(2);
		}
	}

	/** A queue's entry in the list, which the statistics of that queue alone must equal, limits included. */
	private static QueueStats stats(TaskQueueOperations operations, String queue) {
		QueueStats listed = operations.queueStats()
			.stream()
			.filter((stats) -> stats.queue().equals(queue))
			.findFirst()
			.orElseThrow();
		assertThat(operations.queueStats(queue)).usingRecursiveComparison()
			.ignoringFields("oldestReadyAge")
			.isEqualTo(listed);
		return listed;
	}

	private static double heldBack(MeterRegistry meters, String queue, String limit) {
		Gauge gauge = Search.in(meters).name("taskqueue.queue.held.back").tag("queue", queue).tag("limit", limit)
			.gauge();
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

		final AtomicInteger started = new AtomicInteger();

		final AtomicInteger running = new AtomicInteger();

		final AtomicInteger peak = new AtomicInteger();

		final AtomicInteger completed = new AtomicInteger();

		final AtomicInteger pacedCompleted = new AtomicInteger();

		@TaskHandler(queue = "gated")
		void gated(String payload) throws InterruptedException {
			this.started.incrementAndGet();
			this.peak.accumulateAndGet(this.running.incrementAndGet(), Math::max);
			try {
				this.release.await(30, TimeUnit.SECONDS);
			}
			finally {
				this.running.decrementAndGet();
				this.completed.incrementAndGet();
			}
		}

		@TaskHandler(queue = "paced")
		void paced(String payload) {
			this.pacedCompleted.incrementAndGet();
		}

	}

}
