package dev.taskqueue.sample;

import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import dev.taskqueue.BatchResult;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskQueueOperations.BatchProgress;
import dev.taskqueue.TaskRequest;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /batches?count=N}: enqueues N demo tasks as one batch, followed by a report once they are all done
 * ({@link DemoReportHandler}); {@code GET /batches/{id}} reads its progress.
 */
@RestController
public class DemoBatchController {

	private final TaskQueue taskQueue;

	private final TaskQueueOperations operations;

	public DemoBatchController(TaskQueue taskQueue, TaskQueueOperations operations) {
		this.taskQueue = taskQueue;
		this.operations = operations;
	}

	@PostMapping("/batches")
	@ResponseStatus(HttpStatus.ACCEPTED)
	public BatchResult enqueue(@RequestParam(defaultValue = "10") int count,
			@RequestParam(defaultValue = "false") boolean fail) {
		if (count < 0 || count > 10_000) {
			throw new IllegalArgumentException("count must be from 0 to 10000 but was " + count);
		}
		List<TaskRequest> tasks = IntStream.rangeClosed(1, count)
			.mapToObj((number) -> TaskRequest.of("demo", new DemoTask(number, count, fail && number == 1)))
			.toList();
		return this.taskQueue.enqueueBatch(tasks, TaskRequest.of(DemoReportHandler.QUEUE, "demo batch"));
	}

	@GetMapping("/batches/{id}")
	public ResponseEntity<BatchProgress> progress(@PathVariable UUID id) {
		return ResponseEntity.of(this.operations.batch(id));
	}

}
