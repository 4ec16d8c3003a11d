package dev.taskqueue.testing;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.testing.TesterTestApplication.Chain;
import dev.taskqueue.testing.TesterTestApplication.Handlers;
import dev.taskqueue.testing.TesterTestApplication.Note;
import dev.taskqueue.testing.TesterTestApplication.Receipt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link TaskQueueTester} in a test without a transaction, the worker off: every task commits as in production.
 */
@SpringBootTest(classes = TesterTestApplication.class, properties = "taskqueue.worker.enabled=false")
@AutoConfigureTaskQueueDatabase
class TaskQueueTesterIntegrationTests {

	@Autowired
	private TaskQueueTester tester;

	@Autowired
	private TaskQueue taskQueue;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private Handlers handlers;

	@BeforeEach
	void clean() {
		this.jdbc.sql("DELETE FROM taskqueue_task").update();
		this.jdbc.sql("DELETE FROM taskqueue_dead_task").update();
		this.jdbc.sql("DELETE FROM written").update();
		this.handlers.reset();
	}

	@Test
	void assertEnqueuedFindsATaskByItsPayloadAsJson() {
		UUID id = this.taskQueue.enqueue(TaskRequest.of("write", new Note("hello")).withPriority(3));
		EnqueuedTask task = this.tester.assertEnqueued("write", new Note("hello"));
		assertThat(task.id()).isEqualTo(id);
		assertThat(task.priority()).isEqualTo(3);
		assertThat(task.isDue()).isTrue();
		assertThat(task.attempt()).isZero();
		assertThat(task.payload(Note.class)).isEqualTo(new Note("hello"));
		assertThat(this.tester.assertEnqueued("write", Map.of("text", "hello")).id()).isEqualTo(id);
		assertThat(this.tester.assertEnqueuedCount("write", 1)).extracting(EnqueuedTask::id).containsExactly(id);
		this.tester.assertNotEnqueued("write", new Note("bye"));
		this.tester.assertNotEnqueued("fail", new Note("hello"));
		this.tester.assertEnqueuedCount("fail", 0);
		assertThat(this.tester.enqueued()).extracting(EnqueuedTask::id).containsExactly(id);
	}

	@Test
	void failedAssertionsShowWhatWasEnqueued() {
		assertThatThrownBy(() -> this.tester.assertEnqueued("write", new Note("bye"))).isInstanceOf(AssertionError.class)
			.hasMessage("Expected a task on queue 'write' with payload {\"text\":\"bye\"}, but queue 'write' has none, "
					+ "and no other queue has any either");
		this.taskQueue.enqueue(TaskRequest.of("write", new Note("hello")).withPriority(3));
		assertThatThrownBy(() -> this.tester.assertEnqueued("write", new Note("bye"))).isInstanceOf(AssertionError.class)
			.hasMessage("Expected a task on queue 'write' with payload {\"text\":\"bye\"}, but queue 'write' has 1:\n"
					+ "  write {\"text\": \"hello\"}, priority 3");
		assertThatThrownBy(() -> this.tester.assertEnqueued("writes", new Note("hello")))
			.isInstanceOf(AssertionError.class)
			.hasMessage("Expected a task on queue 'writes' with payload {\"text\":\"hello\"}, but queue 'writes' has "
					+ "none; the other queues have 1:\n  write {\"text\": \"hello\"}, priority 3");
		assertThatThrownBy(() -> this.tester.assertNotEnqueued("write", new Note("hello")))
			.isInstanceOf(AssertionError.class)
			.hasMessage("Expected no task on queue 'write' with payload {\"text\":\"hello\"}, but found 1:\n"
					+ "  write {\"text\": \"hello\"}, priority 3");
		assertThatThrownBy(() -> this.tester.assertEnqueuedCount("write", 2)).isInstanceOf(AssertionError.class)
			.hasMessage("Expected 2 tasks on queue 'write', but queue 'write' has 1:\n"
					+ "  write {\"text\": \"hello\"}, priority 3");
	}

	@Test
	void runAllRunsTheHandlerOnThisThreadAndCompletesTheTaskOnce() {
		UUID id = this.taskQueue.enqueue("write", new Note("hello"));
		TaskRuns runs = this.tester.runAll();
		assertThat(runs.all()).containsExactly(new TaskRun(id, "write", 1, TaskRun.Outcome.COMPLETED, null));
		assertThat(runs.assertAllCompleted().completed()).isOne();
		assertThat(this.handlers.threads.get("write")).isSameAs(Thread.currentThread());
		assertThat(this.jdbc.sql("SELECT count(*) FROM taskqueue_task").query(Long.class).single()).isZero();
		assertThat(written(id)).isOne();
		assertThat(this.tester.runAll().count()).isZero();
		assertThat(this.handlers.calls("write")).isOne();
		assertThat(written(id)).isOne();
	}

	@Test
	void failingHandlerRecordsARetryAndDoesNotRunAgainAtOnce() {
		UUID id = this.taskQueue.enqueue("fail", new Note("oops"));
		TaskRuns runs = this.tester.runAll();
		assertThat(runs.retried()).isOne();
		assertThat(runs.completed()).isZero();
		assertThat(runs.all().get(0).failure()).isInstanceOf(IllegalStateException.class)
			.hasMessage("failed on purpose: oops");
		assertThatThrownBy(runs::assertAllCompleted).isInstanceOf(AssertionError.class)
			.hasMessageStartingWith("1 of 1 tasks did not complete:\n  fail task " + id + " (attempt 1): RETRIED, "
					+ "java.lang.IllegalStateException: failed on purpose: oops")
			.hasCause(runs.all().get(0).failure());
		EnqueuedTask task = this.tester.assertEnqueuedCount("fail", 1).get(0);
		assertThat(task.attempt()).isOne();
		assertThat(task.isDue()).isFalse();
		assertThat(task.lastError()).contains("failed on purpose: oops");
		assertThat(this.jdbc.sql("SELECT run_at > now() FROM taskqueue_task WHERE id = ?")
			.param(id)
			.query(Boolean.class)
			.single()).isTrue();
		assertThat(written(id)).isZero();
		assertThat(this.tester.runAll().count()).isZero();
		assertThat(this.handlers.calls("fail")).isOne();

		assertThat(this.tester.makeDue("fail")).isOne();
		assertThat(this.tester.run("fail").all()).singleElement()
			.satisfies((run) -> assertThat(run.attempt()).isEqualTo(2))
			.satisfies((run) -> assertThat(run.outcome()).isEqualTo(TaskRun.Outcome.RETRIED));
		assertThat(this.handlers.calls("fail")).isEqualTo(2);
	}

	@Test
	void aRunCarriesTheHandlersResultAndLastProgress() {
		UUID id = this.taskQueue.enqueue("receipt", new Note("hello"));
		TaskRun run = this.tester.run("receipt").assertAllCompleted().all().get(0);
		assertThat(run.result(Receipt.class)).isEqualTo(new Receipt(5));
		assertThat(run.progress().percent()).isEqualTo(90);
		assertThat(run.progress().message()).isEqualTo("nearly done");
		assertThat(this.jdbc.sql("SELECT result->>'characters' FROM taskqueue_result WHERE id = ?")
			.param(id)
			.query(String.class)
			.single()).isEqualTo("5");
		assertThatThrownBy(() -> run.result(Note.class)).isInstanceOf(AssertionError.class)
			.hasMessageContaining("Expected a result of type " + Note.class.getName())
			.hasMessageContaining("gave a " + Receipt.class.getName());

		this.taskQueue.enqueue("write", new Note("no result"));
		TaskRun written = this.tester.run("write").all().get(0);
		assertThat(written.result()).isNull();
		assertThat(written.progress()).isNull();
		assertThatThrownBy(() -> written.result(Receipt.class)).isInstanceOf(AssertionError.class)
			.hasMessageEndingWith("but it gave none");
	}

	@Test
	void nonRetryableFailureSendsTheTaskToTheDeadLetters() {
		UUID id = this.taskQueue.enqueue("reject", new Note("no"));
		TaskRuns runs = this.tester.runAll();
		assertThat(runs.deadLettered()).isOne();
		assertThat(runs.all().get(0).failure()).isInstanceOf(NonRetryableTaskException.class);
		this.tester.assertEnqueuedCount("reject", 0);
		assertThat(this.jdbc.sql("SELECT attempts || ' ' || error FROM taskqueue_dead_task WHERE id = ?")
			.param(id)
			.query(String.class)
			.single()).startsWith("1 ").contains("rejected: no");
	}

	@Test
	void scheduledTasksWaitUntilMadeDue() {
		UUID id = this.taskQueue.enqueue(TaskRequest.of("write", new Note("later")).withDelay(Duration.ofHours(1)));
		assertThat(this.tester.runAll().count()).isZero();
		assertThat(this.tester.assertEnqueued("write", new Note("later")).isDue()).isFalse();
		assertThat(this.tester.makeDue("write")).isOne();
		assertThat(this.tester.runAll().completed()).isOne();
		assertThat(written(id)).isOne();
	}

	@Test
	void runUntilEmptyRunsTheTasksHandlersEnqueue() {
		this.taskQueue.enqueue("chain", new Chain(3));
		assertThat(this.tester.runAll().completed()).isOne();
		this.tester.assertEnqueued("chain", new Chain(2));
		TaskRuns runs = this.tester.runUntilEmpty();
		assertThat(runs.completed()).isEqualTo(3);
		assertThat(this.jdbc.sql("SELECT text FROM written ORDER BY text DESC").query(String.class).list())
			.containsExactly("chain 3", "chain 2", "chain 1", "chain 0");
		assertThat(this.tester.enqueued()).isEmpty();
	}

	@Test
	void runUntilEmptyStopsAHandlerThatAlwaysEnqueues() {
		this.taskQueue.enqueue("forever", new Note("again"));
		assertThatIllegalStateException().isThrownBy(this.tester::runUntilEmpty)
			.withMessage("Tasks were still due after 100 rounds of runAll(), which ran 100 tasks: 100 completed, "
					+ "0 retried, 0 dead-lettered; does a handler enqueue a task each time it runs?");
		assertThat(this.handlers.calls("forever")).isEqualTo(TaskQueueTester.MAX_ROUNDS);
	}

	@Test
	void runNamesTheQueuesThatHaveHandlers() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.tester.run("nope"))
			.withMessageStartingWith("This application has no @TaskHandler for queue 'nope'; its queues are [")
			.withMessageContaining("write")
			.withMessageContaining("chain");
	}

	private long written(UUID taskId) {
		return this.jdbc.sql("SELECT count(*) FROM written WHERE task_id = ?").param(taskId).query(Long.class).single();
	}

}
