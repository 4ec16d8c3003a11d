package dev.taskqueue.testing;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.testing.TesterTestApplication.Note;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link TaskQueueTester} while the application's worker runs: it refuses to race the worker for committed tasks,
 * and runs the tasks of a transaction, which the worker cannot see.
 */
@SpringBootTest(classes = TesterTestApplication.class, properties = "taskqueue.worker.poll-interval=50ms")
@AutoConfigureTaskQueueDatabase
class WorkerRunningIntegrationTests {

	@Autowired
	private TaskQueueTester tester;

	@Autowired
	private TaskQueue taskQueue;

	@Autowired
	private TransactionTemplate transactions;

	@Test
	void runOutsideATransactionSaysToTurnTheWorkerOff() {
		assertThatIllegalStateException().isThrownBy(this.tester::runAll)
			.withMessage("The application's TaskQueue worker is running and claims the committed tasks that this "
					+ "would run, so which of the two runs a task would be left to chance. Turn it off for this test "
					+ "(taskqueue.worker.enabled=false, e.g. @SpringBootTest(properties = "
					+ "\"taskqueue.worker.enabled=false\")), or run the tasks in a @Transactional test, whose tasks "
					+ "the worker cannot see");
	}

	@Test
	void runsTheTasksOfATransaction() {
		TaskRuns runs = this.transactions.execute((status) -> {
			this.taskQueue.enqueue("write", new Note("mine"));
			TaskRuns ran = this.tester.runAll();
			status.setRollbackOnly();
			return ran;
		});
		assertThat(runs.assertAllCompleted().count()).isOne();
	}

}
