package dev.taskqueue.internal.producer;

import java.util.List;
import java.util.UUID;

import dev.taskqueue.BatchResult;
import dev.taskqueue.PublishResult;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.NewTask;
import dev.taskqueue.internal.jdbc.TopicRepository;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The fan-out and batch enqueues of {@link DefaultTaskQueue}, on tasks it has already checked and written as JSON.
 */
class TopicsAndBatches {

	private final TopicRepository topics;

	private final BatchRepository batches;

	private final Runnable batchEnqueued;

	/**
	 * @param batchEnqueued told once a batch enqueued here has committed, so that this instance looks for done
	 * batches soon rather than at its next heartbeat
	 */
	public TopicsAndBatches(TopicRepository topics, BatchRepository batches, Runnable batchEnqueued) {
		this.topics = topics;
		this.batches = batches;
		this.batchEnqueued = batchEnqueued;
	}

	PublishResult publish(String topic, NewTask task) {
		return new PublishResult(topic, this.topics.publish(topic, task));
	}

	BatchResult enqueueBatch(List<NewTask> tasks, NewTask then) {
		UUID batchId = TaskIds.next();
		this.batches.insert(batchId, tasks, then);
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
		return new BatchResult(batchId, tasks.stream().map(NewTask::id).toList(), then.id());
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
	}

}
