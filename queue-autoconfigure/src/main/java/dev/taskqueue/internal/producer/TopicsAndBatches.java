package dev.taskqueue.internal.producer;

import java.util.List;
import java.util.UUID;

import dev.taskqueue.BatchResult;
import dev.taskqueue.PublishResult;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.DependencyRepository;
import dev.taskqueue.internal.jdbc.DependencyRepository.WaitingTask;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.TopicRepository;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The fan-out, batch and dependent enqueues of {@link DefaultTaskQueue}, on tasks it has already checked and written
 * as JSON.
 */
class TopicsAndBatches {

	private final TopicRepository topics;

	private final BatchRepository batches;

	private final DependencyRepository dependencies;

	private final Runnable batchEnqueued;

	/**
	 * @param batchEnqueued told once a batch or a task waiting for others enqueued here has committed, so that this
	 * instance looks for done batches and prerequisites soon rather than at its next heartbeat
	 */
	public TopicsAndBatches(TopicRepository topics, BatchRepository batches, DependencyRepository dependencies,
			Runnable batchEnqueued) {
		this.topics = topics;
		this.batches = batches;
		this.dependencies = dependencies;
		this.batchEnqueued = batchEnqueued;
	}

	PublishResult publish(String topic, NewTask task) {
		return new PublishResult(topic, this.topics.publish(topic, task));
	}

	BatchResult enqueueBatch(List<NewTask> tasks, List<WaitingTask> waiting, List<UUID> ids, NewTask then) {
		UUID batchId = DefaultTaskQueue.nextId();
		this.batches.insert(batchId, tasks, tasks.size() + waiting.size(), then);
		this.dependencies.insert(waiting, batchId);
		sweepSoon();
		return new BatchResult(batchId, ids, then.id());
	}

	/** Inserts {@code tasks}, which wait for their prerequisites, and has this instance sweep soon. */
	void enqueueWaiting(List<WaitingTask> tasks) {
		this.dependencies.insert(tasks, null);
		sweepSoon();
	}

	private void sweepSoon() {
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					TopicsAndBatches.this.batchEnqueued.run();
				}

			});
		}
		else {
			this.batchEnqueued.run();
		}
	}

	/**
	 * A task of a batch is counted by its own row, which a unique key could make another task's; and a batch is
	 * inserted by one statement of its own, which does not place tasks behind their ordering key.
	 */
	static void requireNoKey(TaskRequest request, String argument) {
		if (request.uniqueKey() != null) {
			throw new IllegalArgumentException(argument + " has unique key '" + request.uniqueKey()
					+ "'; the tasks of a batch and its then task cannot have one");
		}
		if (request.orderingKey() != null) {
			throw new IllegalArgumentException(argument + " has ordering key '" + request.orderingKey()
					+ "'; the tasks of a batch and its then task cannot have one");
		}
		if (request.fairnessKey() != null) {
			throw new IllegalArgumentException(argument + " has fairness key '" + request.fairnessKey()
					+ "'; the tasks of a batch and its then task cannot have one");
		}
	}

}
