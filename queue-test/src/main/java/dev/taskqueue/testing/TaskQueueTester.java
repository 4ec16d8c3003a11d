package dev.taskqueue.testing;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import dev.taskqueue.TaskContext;
import dev.taskqueue.internal.worker.TaskRunner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Tests code that enqueues tasks, and the handlers that run them. Inject it in a {@code @SpringBootTest}: it is
 * configured whenever the {@code queue-test} jar is on the test class path.
 * <ul>
 * <li>{@link #enqueued(String)} and the {@code assert…} methods show what waits in the task table, read on the
 * application's {@code DataSource}: inside a {@code @Transactional} test they see the test's uncommitted tasks.
 * <li>{@link #run(String)}, {@link #runAll()} and {@link #runUntilEmpty()} claim the tasks that are due and run each
 * one on the calling thread as the worker would: payload reading, interceptors, listeners, the handler and the
 * task's fenced completion in one transaction; a failure is recorded as a retry (the task is not run again at
 * once: see {@link #makeDue(String)}) or a dead letter. Each {@link TaskRun} has the handler's result and last
 * progress. There is no handler timeout, and every task commits alone,
 * on queues with group commit or batched completion too.
 * </ul>
 * Inside a {@code @Transactional} test each handler runs in a nested transaction (a savepoint) of the test's, so
 * the test sees the handler's work and the task gone, and all of it rolls back with the test; a failing handler
 * undoes its own work only. Code that runs after commit never runs there. Outside a transaction every task
 * commits, as in production; then the application's worker must be off ({@code taskqueue.worker.enabled=false}),
 * or it would race these methods for the tasks. With the worker on, {@code run…} methods refuse to run outside a
 * transaction (inside one, the worker cannot see the test's tasks).
 */
public class TaskQueueTester {

	/** How many rounds {@link #runUntilEmpty()} runs at most. */
	public static final int MAX_ROUNDS = 100;

	private final TaskRunner runner;

	private final EnqueuedTaskRepository tasks;

	private final JsonMapper mapper;

	private final BooleanSupplier workerRunning;

	TaskQueueTester(TaskRunner runner, EnqueuedTaskRepository tasks, JsonMapper mapper, BooleanSupplier workerRunning) {
		this.runner = runner;
		this.tasks = tasks;
		this.mapper = mapper;
		this.workerRunning = workerRunning;
	}

	/** Every task in the task table, by queue, then in the order the worker would claim them. */
	public List<EnqueuedTask> enqueued() {
		return this.tasks.all();
	}

	/** The tasks of {@code queue}, in the order the worker would claim them. */
	public List<EnqueuedTask> enqueued(String queue) {
		return this.tasks.onQueue(queue);
	}

	/**
	 * Checks that a task with {@code payload} is enqueued on {@code queue}. Payloads compare as JSON trees, so
	 * {@code payload} can be the object given to {@code enqueue} or any other whose JSON is the same.
	 * @return the first such task, to check its priority, due time or headers
	 * @throws AssertionError showing what is enqueued, if there is no such task
	 */
	public EnqueuedTask assertEnqueued(String queue, Object payload) {
		JsonNode expected = asStored(payload);
		List<EnqueuedTask> onQueue = enqueued(queue);
		return onQueue.stream()
			.filter((task) -> task.payload().equals(expected))
			.findFirst()
			.orElseThrow(() -> new AssertionError("Expected a task on queue '" + queue + "' with payload " + expected
					+ ", but " + describe(queue, onQueue)));
	}

	/**
	 * Checks that no task with {@code payload} is enqueued on {@code queue}.
	 * @throws AssertionError showing the tasks found
	 */
	public void assertNotEnqueued(String queue, Object payload) {
		JsonNode expected = asStored(payload);
		List<EnqueuedTask> found = enqueued(queue).stream().filter((task) -> task.payload().equals(expected)).toList();
		if (!found.isEmpty()) {
			throw new AssertionError("Expected no task on queue '" + queue + "' with payload " + expected
					+ ", but found " + found.size() + ":" + list(found));
		}
	}

	/**
	 * Checks that exactly {@code count} tasks are enqueued on {@code queue}.
	 * @return those tasks
	 * @throws AssertionError showing what is enqueued, if the count differs
	 */
	public List<EnqueuedTask> assertEnqueuedCount(String queue, int count) {
		List<EnqueuedTask> onQueue = enqueued(queue);
		if (onQueue.size() != count) {
			throw new AssertionError("Expected " + count + " tasks on queue '" + queue + "', but "
					+ describe(queue, onQueue));
		}
		return onQueue;
	}

	/**
	 * Runs the tasks of {@code queue} that are due now, one after the other on this thread, as the worker would.
	 * Tasks their handlers enqueue into {@code queue}, and tasks that fail, wait for the next call.
	 * @throws IllegalArgumentException if the application has no handler for {@code queue}
	 * @throws IllegalStateException if the worker is running and no transaction is active
	 */
	public TaskRuns run(String queue) {
		return run(List.of(queue));
	}

	/** Runs the due tasks of every queue the application has a handler for, queue after queue (see {@link #run}). */
	public TaskRuns runAll() {
		return run(this.runner.queues());
	}

	private TaskRuns run(List<String> queues) {
		if (!TransactionSynchronizationManager.isActualTransactionActive() && this.workerRunning.getAsBoolean()) {
			throw new IllegalStateException("The application's TaskQueue worker is running and claims the committed "
					+ "tasks that this would run, so which of the two runs a task would be left to chance. Turn it off "
					+ "for this test (taskqueue.worker.enabled=false, e.g. @SpringBootTest(properties = "
					+ "\"taskqueue.worker.enabled=false\")), or run the tasks in a @Transactional test, whose tasks "
					+ "the worker cannot see");
		}
		return new TaskRuns(this.runner.run(queues)
			.stream()
			.map(TaskQueueTester::taskRun)
			.toList());
	}

	/**
	 * Calls {@link #runAll()} until it finds no task due, so that tasks enqueued by handlers run too. A failed task
	 * waits for its retry as usual, unless the retry backoff is shorter than the run (inside a transaction it never
	 * is: the database clock stands still there).
	 * @throws IllegalStateException if tasks are still due after {@value #MAX_ROUNDS} rounds
	 */
	public TaskRuns runUntilEmpty() {
		TaskRuns runs = new TaskRuns(List.of());
		for (int round = 0; round < MAX_ROUNDS; round++) {
			TaskRuns ran = runAll();
			if (ran.count() == 0) {
				return runs;
			}
			runs = runs.plus(ran);
		}
		throw new IllegalStateException("Tasks were still due after " + MAX_ROUNDS + " rounds of runAll(), which ran "
				+ runs + "; does a handler enqueue a task each time it runs?");
	}

	/**
	 * Makes the tasks of {@code queue} that are scheduled for later, or wait for a retry, due now, as if their time
	 * had come; the next {@link #run(String)} runs them.
	 * @return how many tasks were made due
	 */
	public int makeDue(String queue) {
		return this.tasks.makeDue(queue);
	}

	private JsonNode asStored(Object payload) {
		return this.mapper.readTree(this.tasks.asStored(this.mapper.writeValueAsString(payload)));
	}

	private String describe(String queue, List<EnqueuedTask> onQueue) {
		if (!onQueue.isEmpty()) {
			return "queue '" + queue + "' has " + onQueue.size() + ":" + list(onQueue);
		}
		List<EnqueuedTask> all = enqueued();
		return "queue '" + queue + "' has none" + (all.isEmpty() ? ", and no other queue has any either"
				: "; the other queues have " + all.size() + ":" + list(all));
	}

	private static String list(List<EnqueuedTask> tasks) {
		return tasks.stream().map((task) -> "\n  " + task).collect(Collectors.joining());
	}

	private static TaskRun taskRun(TaskRunner.Ran ran) {
		TaskContext task = ran.task();
		TaskRun.Outcome outcome = outcome(ran.outcome());
		Object result = (outcome == TaskRun.Outcome.COMPLETED) ? task.result() : null; // as the worker keeps it
		return new TaskRun(task.id(), task.queue(), task.attempt(), outcome, ran.failure(), result, task.progress());
	}

	private static TaskRun.Outcome outcome(TaskRunner.Outcome outcome) {
		return switch (outcome) {
			case COMPLETED -> TaskRun.Outcome.COMPLETED;
			case RETRIED -> TaskRun.Outcome.RETRIED;
			case DEAD -> TaskRun.Outcome.DEAD_LETTERED;
			case CLAIM_LOST -> TaskRun.Outcome.CLAIM_LOST;
		};
	}

}
