package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.QueueLimitStats;
import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.TaskRequest;
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
 * {@code global-concurrency} bounds the tasks of a queue running at once across instances: three instances of
 * concurrency 4 (12 threads) run a queue limited to 5, and the handlers running at once, counted in the one JVM the
 * three instances share, peak at exactly 5. A dead instance's slots come back with its session.
 */
class GlobalConcurrencyIntegrationTests {

	private static final int LIMIT = 5;

	/** Handlers running now, and the most at once, over every instance of the test running. */
	static final AtomicInteger running = new AtomicInteger();

	static final AtomicInteger peak = new AtomicInteger();

	@Test
	void threeInstancesNeverRunMoreThanTheGlobalLimit() {
		running.set(0);
		peak.set(0);
		String url = TestDatabase.createDatabase();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				instances.add(TestApplications.start(url, List.of(Config.class), "taskqueue.worker.concurrency=4",
						"taskqueue.queues.limited.global-concurrency=" + LIMIT));
			}
			JdbcTemplate jdbc = instances.get(0).getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE handled (task_id uuid NOT NULL)");
			List<TaskRequest> requests = new ArrayList<>();
			for (int i = 0; i < 60; i++) {
				requests.add(TaskRequest.of("limited", i));
			}
			instances.get(1).getBean(TaskQueue.class).enqueueAll(requests);
			Await.until("all tasks are done", Duration.ofSeconds(60),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForObject("SELECT count(DISTINCT task_id) FROM handled", Integer.class)).isEqualTo(60);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM handled", Integer.class)).isEqualTo(60);
			assertThat(peak.get()).as("the most handlers running at once across the instances").isEqualTo(LIMIT);
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Test
	void deadInstanceSlotsComeBackWithItsSession() throws InterruptedException {
		running.set(0);
		peak.set(0);
		String url = TestDatabase.createDatabase();
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			// Migrates the schema; its worker has no handler for the queue.
			instances.add(TestApplications.start(url, List.of(), "taskqueue.worker.enabled=false"));
			JdbcTemplate jdbc = instances.get(0).getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE handled (task_id uuid NOT NULL)");
			// An instance that died holding both slots: its session is fresh, so it expires a session timeout later.
			UUID dead = UUID.randomUUID();
			jdbc.update("INSERT INTO taskqueue_session (id, name) VALUES (?, 'dead')", dead);
			jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, attempt, claimed_by, claimed_at) "
					+ "SELECT gen_random_uuid(), 'limited', '0', 1, ?, now() FROM generate_series(1, 2)", dead);
			instances.get(0).getBean(TaskQueue.class).enqueueAll(List.of(TaskRequest.of("limited", 1),
					TaskRequest.of("limited", 2), TaskRequest.of("limited", 3)));
			// The dead instance looks alive for a while longer, a session timeout and more after the live one started:
			// the live one claims nothing meanwhile. Its heartbeats start before the live instance does, whose start
			// can take longer than a session timeout on a loaded machine; and the timeout is 3 s, not 1, so that a
			// pause of the JVM (load, a collection) does not let the live instance expire the dead one early.
			AtomicBoolean alive = new AtomicBoolean(true);
			Thread heartbeats = new Thread(() -> {
				while (alive.get()) {
					jdbc.update("UPDATE taskqueue_session SET heartbeat_at = now() WHERE id = ?", dead);
					try {
						Thread.sleep(100);
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			}, "dead-instance-heartbeats");
			heartbeats.start();
			try {
				instances.add(TestApplications.start(url, List.of(Config.class), "taskqueue.worker.concurrency=4",
						"taskqueue.queues.limited.global-concurrency=2", "taskqueue.worker.session-timeout=3s",
						"taskqueue.worker.heartbeat-interval=200ms"));
				Thread.sleep(4_000);
			}
			finally {
				alive.set(false);
				heartbeats.join();
			}
			QueueStats stats = instances.get(1)
				.getBean(TaskQueueOperations.class)
				.queueStats()
				.stream()
				.filter((queue) -> queue.queue().equals("limited"))
				.findFirst()
				.orElseThrow();
			assertThat(stats.running()).isEqualTo(2);
			assertThat(stats.ready()).isEqualTo(3);
			assertThat(stats.limits()).isEqualTo(new QueueLimitStats(2, null, null, 0, 3, "global-concurrency"));
			assertThat(jdbc.queryForObject("SELECT count(*) FROM handled", Integer.class)).isZero();
			Await.until("all tasks are done", Duration.ofSeconds(30),
					() -> jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class) == 0);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM handled", Integer.class)).isEqualTo(5);
			// Every handler, those of the dead instance's tasks too, ran after the dead session was gone.
			assertThat(jdbc.queryForObject("SELECT count(*) FROM handled WHERE task_id IS NULL", Integer.class))
				.isZero();
			assertThat(peak.get()).isEqualTo(2);
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		LimitedHandler limitedHandler(JdbcTemplate jdbc) {
			return new LimitedHandler(jdbc);
		}

	}

	static class LimitedHandler {

		private final JdbcTemplate jdbc;

		LimitedHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "limited")
		void handle(int payload, TaskContext context) throws InterruptedException {
			int now = running.incrementAndGet();
			peak.accumulateAndGet(now, Math::max);
			try {
				// NULL while a session other than this task's own is alive: the dead one still holds its slots.
				this.jdbc.update("INSERT INTO handled (task_id) SELECT ? WHERE NOT EXISTS (SELECT 1 FROM "
						+ "taskqueue_session s WHERE s.name = 'dead') UNION ALL SELECT NULL WHERE EXISTS "
						+ "(SELECT 1 FROM taskqueue_session s WHERE s.name = 'dead')", context.id());
				Thread.sleep(100);
			}
			finally {
				running.decrementAndGet();
			}
		}

	}

}
