package dev.taskqueue.testing;

import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.testing.TesterTestApplication.Note;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.transaction.AfterTransaction;
import org.springframework.test.context.transaction.TestTransaction;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TaskQueueTester} in a {@code @Transactional} test: it sees and runs the tasks the test has not committed,
 * and everything rolls back with the test.
 */
@SpringBootTest(classes = TesterTestApplication.class, properties = "taskqueue.worker.enabled=false")
@AutoConfigureTaskQueueDatabase
@Transactional
class TransactionalTaskQueueTesterIntegrationTests {

	@Autowired
	private TaskQueueTester tester;

	@Autowired
	private TaskQueue taskQueue;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void runsTheTasksTheTestHasNotCommitted() {
		UUID id = this.taskQueue.enqueue("write", new Note("uncommitted"));
		this.tester.assertEnqueued("write", new Note("uncommitted"));
		assertThat(this.tester.runAll().assertAllCompleted().completed()).isOne();
		assertThat(count("SELECT count(*) FROM written WHERE task_id = '" + id + "'")).isOne();
		assertThat(count("SELECT count(*) FROM taskqueue_task")).isZero();
		assertThat(this.tester.runAll().count()).isZero();
	}

	@Test
	void failingHandlerUndoesItsOwnWorkOnlyAndItsRetryIsRecordedInTheTestTransaction() {
		UUID kept = this.taskQueue.enqueue("write", new Note("kept"));
		UUID undone = this.taskQueue.enqueue("fail", new Note("undone"));
		TaskRuns runs = this.tester.runAll();
		assertThat(runs.completed()).isOne();
		assertThat(runs.retried()).isOne();
		assertThat(count("SELECT count(*) FROM written WHERE task_id = '" + kept + "'")).isOne();
		assertThat(count("SELECT count(*) FROM written WHERE task_id = '" + undone + "'")).isZero();
		EnqueuedTask retry = this.tester.assertEnqueuedCount("fail", 1).get(0);
		assertThat(retry.attempt()).isOne();
		assertThat(retry.isDue()).isFalse();
		// The failure rolled back to its savepoint only: the test's transaction can still commit.
		TestTransaction.flagForCommit();
		TestTransaction.end();
		assertThat(count("SELECT count(*) FROM written")).isOne();
		assertThat(count("SELECT count(*) FROM taskqueue_task WHERE attempt = 1")).isOne();
		this.jdbc.sql("DELETE FROM written").update();
		this.jdbc.sql("DELETE FROM taskqueue_task").update();
	}

	@AfterTransaction
	void nothingWasCommitted() {
		assertThat(count("SELECT count(*) FROM taskqueue_task")).isZero();
		assertThat(count("SELECT count(*) FROM taskqueue_session")).isZero();
		assertThat(count("SELECT count(*) FROM written")).isZero();
	}

	private long count(String sql) {
		return this.jdbc.sql(sql).query(Long.class).single();
	}

}
