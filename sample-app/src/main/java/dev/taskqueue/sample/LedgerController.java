package dev.taskqueue.sample;

import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import dev.taskqueue.PublishResult;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Ordered keys and topics in a few lines. {@code POST /accounts/{account}/entries?count=N} enqueues N ledger entries
 * with the account as their ordering key: {@link LedgerHandler} books them one at a time, in order, while other
 * accounts' entries run beside them. {@code POST /topics/demo-finished} publishes to every queue subscribed to the
 * topic ({@link DemoReportHandler}).
 */
@RestController
public class LedgerController {

	private final TaskQueue taskQueue;

	public LedgerController(TaskQueue taskQueue) {
		this.taskQueue = taskQueue;
	}

	@PostMapping("/accounts/{account}/entries")
	@ResponseStatus(HttpStatus.ACCEPTED)
	public List<UUID> book(@PathVariable String account, @RequestParam(defaultValue = "5") int count) {
		if (count < 1 || count > 1_000) {
			throw new IllegalArgumentException("count must be from 1 to 1000 but was " + count);
		}
		return this.taskQueue.enqueueAll(IntStream.rangeClosed(1, count)
			.mapToObj((number) -> TaskRequest.of(LedgerHandler.QUEUE, new LedgerEntry(account, number))
				.withOrderingKey(account))
			.toList());
	}

	@PostMapping("/topics/{topic}")
	@ResponseStatus(HttpStatus.ACCEPTED)
	public PublishResult publish(@PathVariable String topic, @RequestParam(defaultValue = "a demo") String what) {
		return this.taskQueue.publish(topic, what);
	}

	/** One entry of an account's ledger: the {@code number}th booked. */
	public record LedgerEntry(String account, int number) {
	}

}
