package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
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
 * Closing the application lets running handlers finish, leaves waiting tasks untouched for other instances, ends
 * the session; and a queue this instance has no handler for is never touched.
 */
class GracefulShutdownIntegrationTests {

	static final CountDownLatch twoRunning = new CountDownLatch(2);

	static final AtomicInteger finished = new AtomicInteger();

	@Test
	void runningHandlersFinishAndWaitingTasksStayReady() throws Exception {
		String url = TestDatabase.createDatabase();
		ConfigurableApplicationContext context = TestApplications.start(url, List.of(Config.class),
				"taskqueue.queues.slow.concurrency=2");
		JdbcTemplate jdbc = new JdbcTemplate(new org.springframework.jdbc.datasource.DriverManagerDataSource(url));
		TaskQueue taskQueue = context.getBean(TaskQueue.class);
		taskQueue.enqueue("unhandled-here", "for another instance");
		taskQueue.enqueueAll(List.of(TaskRequest.of("slow", 1), TaskRequest.of("slow", 2),
				TaskRequest.of("slow", 3).withDelay(Duration.ofHours(1)), TaskRequest.of("slow", 4).withDelay(Duration.ofHours(1))));
		assertThat(twoRunning.await(20, TimeUnit.SECONDS)).isTrue();

		context.close();

		assertThat(finished.get()).as("both running handlers finished before close returned").isEqualTo(2);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_session", Integer.class)).isZero();
		List<Map<String, Object>> left = jdbc
			.queryForList("SELECT queue, attempt, claimed_by FROM taskqueue_task ORDER BY queue, run_at");
		assertThat(left).hasSize(3).allSatisfy((row) -> {
			assertThat(row.get("attempt")).isEqualTo(0);
			assertThat(row.get("claimed_by")).isNull();
		});
		assertThat(left).extracting((row) -> row.get("queue")).containsExactly("slow", "slow", "unhandled-here");
	}

	@Configuration(proxyBeanMethods = false)
	static class Config {

		@Bean
		SlowHandler slowHandler() {
			return new SlowHandler();
		}

	}

	static class SlowHandler {

		@TaskHandler(queue = "slow")
		void handle(int n) throws InterruptedException {
			twoRunning.countDown();
			Thread.sleep(1_000);
			finished.incrementAndGet();
		}

	}

}
