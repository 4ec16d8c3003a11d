package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * At SERIALIZABLE a group's snapshot is taken when its transaction starts, so a task the group takes later, claimed
 * after that, looks unclaimed to the group's fenced delete. Its claim holds all the same: the task must run again
 * on its own and complete, not be reported lost and left claimed by a live session.
 */
class SerializableGroupCommitIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	static final CountDownLatch firstStarted = new CountDownLatch(1);

	static final CountDownLatch releaseFirst = new CountDownLatch(1);

	static final List<String> handled = new CopyOnWriteArrayList<>();

	@Test
	void aTaskClaimedAfterItsGroupsSnapshotStillCompletesOnce() throws Exception {
		String url = TestDatabase.createDatabase();
		JdbcTemplate owner = new JdbcTemplate(new DriverManagerDataSource(url));
		owner.execute("ALTER DATABASE " + owner.queryForObject("SELECT current_database()", String.class)
				+ " SET default_transaction_isolation = 'serializable'");
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handler.class),
				"taskqueue.queues.grouped.concurrency=1", "taskqueue.queues.grouped.group-commit-size=5",
				"taskqueue.worker.group-commit-max-delay=30s")) {
			TaskQueue taskQueue = context.getBean(TaskQueue.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			taskQueue.enqueue(TaskRequest.of("grouped", "first"));
			assertThat(firstStarted.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			// The group's transaction has its snapshot: this task is claimed after it and joins the group.
			taskQueue.enqueue(TaskRequest.of("grouped", "second"));
			Await.until("the second task is claimed", WAIT, () -> count(jdbc, "claimed_by IS NOT NULL") == 2);
			releaseFirst.countDown();
			Await.until("both tasks are done", WAIT, () -> count(jdbc, "true") == 0);
			assertThat(handled).filteredOn("second"::equals).isNotEmpty();
			assertThat(jdbc.queryForObject("SHOW transaction_isolation", String.class)).isEqualTo("serializable");
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
		}
	}

	private static int count(JdbcTemplate jdbc, String where) {
		Integer count = jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE " + where, Integer.class);
		return (count != null) ? count : -1;
	}

	static class Handler {

		private final JdbcTemplate jdbc;

		Handler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@TaskHandler(queue = "grouped")
		void handle(String name) throws InterruptedException {
			handled.add(name);
			this.jdbc.queryForObject("SELECT 1", Integer.class); // takes the snapshot, reads no task
			if (name.equals("first")) {
				firstStarted.countDown();
				releaseFirst.await();
			}
		}

	}

}
