package dev.taskqueue.sample;

import java.util.List;
import java.util.stream.IntStream;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /tasks/{queue}?count=N}: enqueues N demo tasks on a queue with one statement. With {@code fail=true}
 * the handler of the {@code demo} queue fails them for good, so they end in the dead letters at once.
 */
@RestController
public class DemoTaskController {

	private final TaskQueue taskQueue;

	public DemoTaskController(TaskQueue taskQueue) {
		this.taskQueue = taskQueue;
	}

	@PostMapping("/tasks/{queue}")
	@ResponseStatus(HttpStatus.ACCEPTED)
	public Enqueued enqueue(@PathVariable String queue, @RequestParam(defaultValue = "10") int count,
			@RequestParam(defaultValue = "false") boolean fail) {
		if (count < 1 || count > 10_000) {
			throw new IllegalArgumentException("count must be from 1 to 10000 but was " + count);
		}
		List<TaskRequest> requests = IntStream.rangeClosed(1, count)
			.mapToObj((number) -> TaskRequest.of(queue, new DemoTask(number, count, fail)))
			.toList();
		return new Enqueued(queue, this.taskQueue.enqueueAll(requests).size());
	}

	@ExceptionHandler(IllegalArgumentException.class)
	@ResponseStatus(HttpStatus.BAD_REQUEST)
	@Nullable String badRequest(IllegalArgumentException ex) {
		return ex.getMessage();
	}

	/** The response body. */
	public record Enqueued(String queue, int enqueued) {
	}

}
