package dev.taskqueue.producer;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.jdbc.TaskNotifications;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Wakes workers when tasks are enqueued: one {@code NOTIFY} per queue per transaction, sent just before the
 * transaction commits (never one per row, never a trigger), or at once when there is no transaction. It hears of
 * enqueues as a {@link TaskQueueListener}.
 */
public class EnqueueNotifier implements TaskQueueListener {

	private final TaskNotifications notifications;

	public EnqueueNotifier(TaskNotifications notifications) {
		this.notifications = notifications;
	}

	/** Notes that {@code queue} got tasks in the current transaction. */
	@Override
	public void enqueued(String queue, int count) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			this.notifications.notify(queue);
			return;
		}
		Queues queues = (Queues) TransactionSynchronizationManager.getResource(this);
		if (queues == null) {
			queues = new Queues();
			TransactionSynchronizationManager.bindResource(this, queues);
			TransactionSynchronizationManager.registerSynchronization(queues);
		}
		queues.names.add(queue);
	}

	/** The queues of one transaction, notified before it commits. */
	private final class Queues implements TransactionSynchronization {

		final Set<String> names = new LinkedHashSet<>();

		@Override
		public void beforeCommit(boolean readOnly) {
			this.names.forEach(EnqueueNotifier.this.notifications::notify);
		}

		@Override
		public void afterCompletion(int status) {
			TransactionSynchronizationManager.unbindResourceIfPossible(EnqueueNotifier.this);
		}

	}

}
