package dev.taskqueue.producer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.jdbc.NewTask;
import dev.taskqueue.jdbc.EnqueueRepository;
import dev.taskqueue.observation.TaskQueueObservations;
import dev.taskqueue.support.PostgresText;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link TaskQueue} on the application's database: writes the payload as JSON and inserts the task on the
 * application's {@code DataSource}, inside the caller's transaction when there is one. Each insert is observed as
 * {@code taskqueue.enqueue}, whose trace context is stored with the tasks as their headers.
 */
public class DefaultTaskQueue implements TaskQueue {

	private final EnqueueRepository tasks;

	private final JsonMapper mapper;

	private final TaskQueueListener listener;

	private final ObservationRegistry observations;

	public DefaultTaskQueue(EnqueueRepository tasks, JsonMapper mapper, TaskQueueListener listener) {
		this(tasks, mapper, listener, ObservationRegistry.NOOP);
	}

	public DefaultTaskQueue(EnqueueRepository tasks, JsonMapper mapper, TaskQueueListener listener,
			ObservationRegistry observations) {
		this.tasks = tasks;
		this.mapper = mapper;
		this.listener = listener;
		this.observations = observations;
	}

	@Override
	public UUID enqueue(TaskRequest request) {
		NewTask task = newTask(request, "request");
		observed(task.queue(), 1, (headers) -> this.tasks.insert(withHeaders(task, headers)));
		this.listener.enqueued(task.queue(), 1);
		return task.id();
	}

	@Override
	public List<UUID> enqueueAll(List<TaskRequest> requests) {
		if (requests == null) {
			throw new IllegalArgumentException("requests must not be null");
		}
		List<NewTask> newTasks = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			newTasks.add(newTask(requests.get(i), "requests[" + i + "]"));
		}
		if (!newTasks.isEmpty()) {
			String observedQueue = newTasks.stream().map(NewTask::queue).distinct().count() == 1
					? newTasks.get(0).queue() : "multiple";
			observed(observedQueue, newTasks.size(), (headers) -> this.tasks
				.insertAll(newTasks.stream().map((task) -> withHeaders(task, headers)).toList()));
			newTasks.stream()
				.collect(Collectors.groupingBy(NewTask::queue, LinkedHashMap::new, Collectors.counting()))
				.forEach((queue, count) -> this.listener.enqueued(queue, count.intValue()));
		}
		return newTasks.stream().map(NewTask::id).toList();
	}

	/** Runs {@code insert} with the headers of a {@code taskqueue.enqueue} observation around it. */
	private void observed(String queue, int count, Consumer<String> insert) {
		if (this.observations.isNoop()) {
			insert.accept("{}");
			return;
		}
		Map<String, String> headers = new LinkedHashMap<>();
		TaskQueueObservations.enqueue(queue, count, headers, this.observations).observe(() -> {
			requireStorable(headers, queue);
			insert.accept(headers.isEmpty() ? "{}" : this.mapper.writeValueAsString(headers));
		});
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

	private static NewTask withHeaders(NewTask task, String headers) {
		return new NewTask(task.id(), task.queue(), task.payload(), task.priority(), task.delay(), task.runAt(),
				headers);
	}

	private NewTask newTask(TaskRequest request, String argument) {
		if (request == null) {
			throw new IllegalArgumentException(argument + " must not be null");
		}
		return new NewTask(TaskIds.next(), request.queue(), json(request, argument), request.priority(),
				request.delay(), request.runAt());
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
