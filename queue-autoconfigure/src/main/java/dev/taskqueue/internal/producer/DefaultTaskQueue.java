package dev.taskqueue.internal.producer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import dev.taskqueue.BatchResult;
import dev.taskqueue.DependencyFailure;
import dev.taskqueue.EnqueueResult;
import dev.taskqueue.PublishResult;
import dev.taskqueue.QueueName;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.UniqueMode;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.DependencyRepository;
import dev.taskqueue.internal.jdbc.DependencyRepository.WaitingTask;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.SerializationRetry;
import dev.taskqueue.internal.jdbc.TopicRepository;
import dev.taskqueue.internal.observation.TaskQueueObservations;
import dev.taskqueue.internal.support.PostgresText;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.unit.DataSize;

/**
 * The {@link TaskQueue} on the application's database: writes the payload as JSON and inserts the task on the
 * application's {@code DataSource}, inside the caller's transaction when there is one. Each insert is observed as
 * {@code taskqueue.enqueue}, whose trace context is stored with the tasks as their headers. It makes the tasks' ids
 * ({@link #nextId}), and enqueues the recurring tasks' ticks for their schedules ({@link #offerJson}).
 */
public class DefaultTaskQueue implements TaskQueue {

	/** The default of {@code taskqueue.max-payload-size}. */
	public static final DataSize DEFAULT_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(1);

	/** Near the most a jsonb value holds (2^28 - 1 bytes); a larger limit could not be met anyway. */
	public static final DataSize LARGEST_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(255);

	// The last id's millisecond and its counter within it (nextId), for all instances of this JVM.
	private static final Object IDS = new Object();

	private static long lastMillis;

	private static long counter;

	private final EnqueueRepository tasks;

	private final JsonMapper mapper;

	private final TaskQueueListener listener;

	private final ObservationRegistry observations;

	private final @Nullable TopicsAndBatches topicsAndBatches;

	private SerializationRetry retry = SerializationRetry.none();

	private long maxPayloadBytes = DEFAULT_MAX_PAYLOAD_SIZE.toBytes();

	public DefaultTaskQueue(EnqueueRepository tasks, JsonMapper mapper, TaskQueueListener listener) {
		this(tasks, mapper, listener, ObservationRegistry.NOOP);
	}

	public DefaultTaskQueue(EnqueueRepository tasks, JsonMapper mapper, TaskQueueListener listener,
			ObservationRegistry observations) {
		this.tasks = tasks;
		this.mapper = mapper;
		this.listener = listener;
		this.observations = observations;
		this.topicsAndBatches = null;
	}

	/**
	 * A task queue that also publishes to topics, enqueues batches and tasks that wait for others;
	 * {@code batchEnqueued} is told after a batch or a waiting task is enqueued, so that the sweeper looks soon.
	 */
	public DefaultTaskQueue(EnqueueRepository tasks, JsonMapper mapper, TaskQueueListener listener,
			ObservationRegistry observations, TopicRepository topics, BatchRepository batches,
			DependencyRepository dependencies, Runnable batchEnqueued) {
		this.tasks = tasks;
		this.mapper = mapper;
		this.listener = listener;
		this.observations = observations;
		this.topicsAndBatches = new TopicsAndBatches(topics, batches, dependencies, batchEnqueued);
	}

	@Override
	public PublishResult publish(String topic, Object payload) {
		requireWritableTransaction("publish");
		QueueName.requireValid(topic, "topic");
		// The topic stands in for the queue in checks and messages: the subscribed queues are known only in SQL.
		NewTask task = newTask(TaskRequest.of(topic, payload), "payload");
		PublishResult result = observed(topic, 1,
				(headers) -> topicsAndBatches().publish(topic, task.withHeaders(headers)));
		result.tasks().keySet().forEach((queue) -> this.listener.enqueued(queue, 1));
		return result;
	}

	@Override
	public BatchResult enqueueBatch(List<TaskRequest> requests, TaskRequest then) {
		requireWritableTransaction("enqueueBatch");
		if (requests == null) {
			throw new IllegalArgumentException("tasks must not be null");
		}
		List<NewTask> newTasks = new ArrayList<>(requests.size());
		List<WaitingTask> waiting = new ArrayList<>();
		List<UUID> ids = new ArrayList<>(requests.size());
		Map<String, Integer> added = new LinkedHashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			NewTask task = newTask(requests.get(i), "tasks[" + i + "]");
			TopicsAndBatches.requireNoKey(requests.get(i), "tasks[" + i + "]");
			if (requests.get(i).dependsOn().isEmpty()) {
				newTasks.add(task);
			}
			else {
				waiting.add(waiting(task, requests.get(i)));
			}
			ids.add(task.id());
			added.merge(task.queue(), 1, Integer::sum);
		}
		NewTask thenTask = newTask(then, "then");
		TopicsAndBatches.requireNoKey(then, "then");
		if (!then.dependsOn().isEmpty()) {
			throw new IllegalArgumentException("then has prerequisites (dependsOn); the then task of a batch already "
					+ "waits for the batch's tasks: give the prerequisites to the batch's tasks instead");
		}
		BatchResult result = observed(thenTask.queue(), requests.size(), (headers) -> topicsAndBatches()
			.enqueueBatch(newTasks.stream().map((task) -> task.withHeaders(headers)).toList(),
					waiting.stream().map((task) -> task.withHeaders(headers)).toList(), ids,
					thenTask.withHeaders(headers)));
		added.forEach(this.listener::enqueued);
		return result;
	}

	private TopicsAndBatches topicsAndBatches() {
		if (this.topicsAndBatches == null) {
			throw new IllegalStateException("This TaskQueue was made without topics and batches");
		}
		return this.topicsAndBatches;
	}

	@Override
	public UUID enqueue(TaskRequest request) {
		requireWritableTransaction("enqueue");
		return offer(request).id();
	}

	@Override
	public EnqueueResult offer(TaskRequest request) {
		requireWritableTransaction("offer");
		NewTask task = newTask(request, "request");
		if (!request.dependsOn().isEmpty()) {
			WaitingTask waiting = waiting(task, request);
			observed(task.queue(), 1, (headers) -> {
				topicsAndBatches().enqueueWaiting(List.of(waiting.withHeaders(headers)));
				return null;
			});
			this.listener.enqueued(task.queue(), 1);
			return new EnqueueResult(task.id(), false);
		}
		EnqueueResult result = observed(task.queue(), 1, (headers) -> this.tasks.offer(task.withHeaders(headers)));
		if (!result.duplicate()) {
			this.listener.enqueued(task.queue(), 1);
		}
		return result;
	}

	@Override
	public List<UUID> enqueueAll(List<TaskRequest> requests) {
		requireWritableTransaction("enqueueAll");
		return offerAll(requests).stream().map(EnqueueResult::id).toList();
	}

	@Override
	public List<EnqueueResult> offerAll(List<TaskRequest> requests) {
		requireWritableTransaction("offerAll");
		if (requests == null) {
			throw new IllegalArgumentException("requests must not be null");
		}
		List<NewTask> newTasks = new ArrayList<>(requests.size());
		Map<List<String>, Integer> firstWithKey = new HashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			newTasks.add(newTask(requests.get(i), "requests[" + i + "]"));
			requireOneMode(requests, i, firstWithKey);
		}
		if (newTasks.isEmpty()) {
			return List.of();
		}
		String observedQueue = newTasks.stream().map(NewTask::queue).distinct().count() == 1 ? newTasks.get(0).queue()
				: "multiple";
		List<EnqueueResult> results = observed(observedQueue, newTasks.size(),
				(headers) -> offerAll(requests, newTasks, headers));
		Map<String, Integer> added = new LinkedHashMap<>();
		for (int i = 0; i < newTasks.size(); i++) {
			if (!results.get(i).duplicate()) {
				added.merge(newTasks.get(i).queue(), 1, Integer::sum);
			}
		}
		added.forEach(this.listener::enqueued);
		return results;
	}

	/**
	 * Inserts the tasks that wait for others into their own table and the others with one statement, in the
	 * caller's transaction; the results keep the order of the requests.
	 */
	private List<EnqueueResult> offerAll(List<TaskRequest> requests, List<NewTask> newTasks, String headers) {
		List<NewTask> due = new ArrayList<>(newTasks.size());
		List<WaitingTask> waiting = new ArrayList<>();
		for (int i = 0; i < newTasks.size(); i++) {
			if (requests.get(i).dependsOn().isEmpty()) {
				due.add(newTasks.get(i).withHeaders(headers));
			}
			else {
				waiting.add(waiting(newTasks.get(i), requests.get(i)).withHeaders(headers));
			}
		}
		if (waiting.isEmpty()) {
			return this.tasks.offerAll(due);
		}
		List<EnqueueResult> dueResults = due.isEmpty() ? List.of() : this.tasks.offerAll(due);
		topicsAndBatches().enqueueWaiting(waiting);
		List<EnqueueResult> results = new ArrayList<>(newTasks.size());
		int next = 0;
		for (int i = 0; i < newTasks.size(); i++) {
			results.add(requests.get(i).dependsOn().isEmpty() ? dueResults.get(next++)
					: new EnqueueResult(newTasks.get(i).id(), false));
		}
		return results;
	}

	private static WaitingTask waiting(NewTask task, TaskRequest request) {
		return new WaitingTask(task, request.dependsOn(),
				request.dependencyFailure() == DependencyFailure.RUN_ANYWAY);
	}

	/** One list uses a key of a queue with one mode: which mode a mixed list meant cannot be told. */
	private static void requireOneMode(List<TaskRequest> requests, int index, Map<List<String>, Integer> firstWithKey) {
		TaskRequest request = requests.get(index);
		if (request.uniqueKey() == null) {
			return;
		}
		Integer first = firstWithKey.putIfAbsent(List.of(request.queue(), request.uniqueKey()), index);
		if (first != null && requests.get(first).uniqueMode() != request.uniqueMode()) {
			throw new IllegalArgumentException("requests[" + index + "] has unique key '" + request.uniqueKey()
					+ "' of queue '" + request.queue() + "' with mode " + request.uniqueMode() + " but requests["
					+ first + "] has it with mode " + requests.get(first).uniqueMode()
					+ ": one list must use one mode per key");
		}
	}

	/**
	 * Refuses to write in a read-only transaction before any SQL runs. PostgreSQL would refuse the statement
	 * ({@code cannot execute INSERT in a read-only transaction}) and with it every later statement of the caller's
	 * transaction; refused here, nothing is written and the caller's transaction goes on. Only a transaction that
	 * is actually active counts: {@code readOnly} on a propagation that starts none leaves the connection writable.
	 */
	private static void requireWritableTransaction(String operation) {
		if (TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
			throw new IllegalStateException("TaskQueue." + operation + " was called in a read-only transaction "
					+ "(such as @Transactional(readOnly = true)), which cannot write the task; nothing was enqueued. "
					+ "Call it in a read-write transaction: drop readOnly = true from the @Transactional around the "
					+ "call, or move the call to a method whose transaction is not read-only");
		}
	}

	/**
	 * Runs {@code insert} with the headers to store, observed. Outside a transaction the insert is its own, and a
	 * serialization failure (CockroachDB, YugabyteDB, SERIALIZABLE) runs it again; inside the caller's, the failure
	 * propagates for the caller to run its transaction again (docs/databases.md).
	 */
	private <T> T observed(String queue, int count, Function<String, T> insert) {
		if (this.observations.isNoop()) {
			return this.retry.run("enqueue", () -> insert.apply("{}"));
		}
		Map<String, String> headers = new LinkedHashMap<>();
		return TaskQueueObservations.enqueue(queue, count, headers, this.observations).observe(() -> {
			requireStorable(headers, queue);
			String stored = headers.isEmpty() ? "{}" : this.mapper.writeValueAsString(headers);
			return this.retry.run("enqueue", () -> insert.apply(stored));
		});
	}

	/** Runs an enqueue outside a transaction again after a serialization failure; see {@link #observed}. */
	public DefaultTaskQueue retrying(SerializationRetry retry) {
		this.retry = retry;
		return this;
	}

	/**
	 * Refuses, before any SQL, payloads whose JSON is longer than {@code maxPayloadSize} in UTF-8. Without a limit a
	 * 100 MB payload is stored and then only fills memory and the dead letters, and above jsonb's 256 MB the INSERT
	 * fails and with it the caller's transaction.
	 */
	public DefaultTaskQueue limitingPayloads(DataSize maxPayloadSize) {
		this.maxPayloadBytes = maxPayloadSize.toBytes();
		return this;
	}

	/** The propagated trace context (baggage included) is stored too, so it must be storable text as well. */
	private static void requireStorable(Map<String, String> headers, String queue) {
		headers.forEach((name, value) -> {
			String problem = PostgresText.problem(name);
			String valueProblem = (value != null) ? PostgresText.problem(value) : null;
			if (problem != null || valueProblem != null) {
				throw new IllegalArgumentException("The trace context of the enqueue on queue '" + queue
						+ "' cannot be stored: " + ((problem != null) ? "a header name contains " + problem
								: "the value of header '" + name + "' contains " + valueProblem));
			}
		});
	}

	/**
	 * A new task id, time-ordered: UUID version 7 (RFC 9562), millisecond timestamp first, so ids sort by creation
	 * time and new rows land together in the primary key index. Within one millisecond a counter keeps ids of this
	 * JVM rising.
	 */
	public static UUID nextId() {
		long millis;
		long sequence;
		synchronized (IDS) {
			millis = System.currentTimeMillis();
			if (millis > lastMillis) {
				lastMillis = millis;
				counter = ThreadLocalRandom.current().nextLong(1 << 10);
			}
			else if (++counter > 0xFFF) {
				lastMillis++; // borrow from the next millisecond rather than break the order
				counter = 0;
			}
			millis = lastMillis;
			sequence = counter;
		}
		long high = (millis << 16) | 0x7000L | sequence;
		long low = (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
		return new UUID(high, low);
	}

	/**
	 * Offers, in the caller's transaction, a task whose payload is JSON text already and whose headers are given: a
	 * recurring task's tick, whose transaction, retries and listeners are its schedule's. With {@code uniqueKey} it
	 * is keyed as {@link UniqueMode#KEEP}.
	 */
	public static EnqueueResult offerJson(EnqueueRepository tasks, String queue, String json, String headers,
			@Nullable String uniqueKey) {
		return tasks.offer(new NewTask(nextId(), queue, json, 0, null, null, headers, uniqueKey, false));
	}

	private NewTask newTask(TaskRequest request, String argument) {
		if (request == null) {
			throw new IllegalArgumentException(argument + " must not be null");
		}
		return new NewTask(nextId(), request.queue(), json(request, argument), request.priority(),
				request.delay(), request.runAt(), "{}", request.uniqueKey(),
				request.uniqueKey() != null && request.uniqueMode() == UniqueMode.REPLACE, request.orderingKey(),
				request.fairnessKey());
	}

	private String json(TaskRequest request, String argument) {
		String json;
		try {
			json = this.mapper.writeValueAsString(request.payload());
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(describe(request, argument) + " cannot be written as JSON: "
					+ ex.getOriginalMessage(), ex);
		}
		// Checked here, before any SQL: PostgreSQL would fail the INSERT and with it the caller's transaction.
		long bytes = PostgresText.utf8Length(json, this.maxPayloadBytes);
		if (bytes > this.maxPayloadBytes) {
			throw new IllegalArgumentException(describe(request, argument) + " is " + bytes + " bytes as JSON, more "
					+ "than taskqueue.max-payload-size (" + this.maxPayloadBytes + " bytes); store large data "
					+ "elsewhere and enqueue a reference to it, or raise taskqueue.max-payload-size");
		}
		String invalid = StorableText.syntaxProblem(json, this.mapper);
		if (invalid != null) {
			throw new IllegalArgumentException(describe(request, argument) + " is not valid JSON: " + invalid
					+ " (a @JsonRawValue or RawValue in it holds text that is not JSON?)");
		}
		String problem = StorableText.jsonProblem(json, this.mapper);
		if (problem != null) {
			throw new IllegalArgumentException(describe(request, argument) + " cannot be stored: " + problem);
		}
		return json;
	}

	private static String describe(TaskRequest request, String argument) {
		return "The payload of " + argument + " (" + request.payload().getClass().getName() + ", queue '"
				+ request.queue() + "')";
	}

}
