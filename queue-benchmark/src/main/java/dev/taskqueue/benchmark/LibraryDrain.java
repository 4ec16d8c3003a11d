package dev.taskqueue.benchmark;

import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;

/**
 * The library's side of a drain: enqueue tasks through {@link TaskQueue#enqueueAll}, then time a worker instance
 * until they are all done.
 */
final class LibraryDrain {

	/** The batch size of {@code enqueueAll} when a workload sets up its tasks. */
	static final int ENQUEUE_BATCH = 1_000;

	private LibraryDrain() {
	}

	/** Creates TaskQueue's tables in {@code database} by starting (and stopping) an instance there. */
	static void migrate(ScratchDatabase database, LibraryProperties properties) {
		LibraryInstance.producer(database.url(), properties).close();
	}

	/** Enqueues tasks 0 to {@code count - 1} on {@code mode}'s queue from a producer instance. */
	static void enqueue(ScratchDatabase database, LibraryProperties properties, Mode mode, int count) {
		try (LibraryInstance producer = LibraryInstance.producer(database.url(), properties)) {
			enqueueInBatches(producer.taskQueue(), mode.queue(), 0, count, ENQUEUE_BATCH);
		}
	}

	/** Enqueues tasks {@code first} to {@code first + count - 1} with one {@code enqueueAll} per {@code batchSize}. */
	static void enqueueInBatches(TaskQueue taskQueue, String queue, long first, long count, int batchSize) {
		for (long seq = first; seq < first + count; seq += batchSize) {
			int size = (int) Math.min(batchSize, first + count - seq);
			List<TaskRequest> requests = new ArrayList<>(size);
			for (int i = 0; i < size; i++) {
				requests.add(TaskRequest.of(queue, new BenchTask(seq + i)));
			}
			taskQueue.enqueueAll(requests);
		}
	}

	/**
	 * Starts a worker instance for {@code mode} and times it from the start of its worker until {@code count}
	 * handlers have run and none of the queue's tasks is left in the table.
	 */
	static Timing drain(ScratchDatabase database, LibraryProperties properties, Mode mode, int count) {
		Probe probe = new Probe();
		try (LibraryInstance worker = LibraryInstance.worker(database.url(), properties, mode, probe);
				QueueTable table = new QueueTable(database, properties.taskTable())) {
			probe.awaitHandled(count);
			return probe.sinceWorkerStart(table.awaitEmpty(mode.queue()));
		}
	}

}
