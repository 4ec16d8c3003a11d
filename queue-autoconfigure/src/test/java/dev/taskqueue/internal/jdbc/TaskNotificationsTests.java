package dev.taskqueue.internal.jdbc;

import java.util.UUID;

import dev.taskqueue.QueueName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cancel of a running task shares the enqueues' channel: its payload must never pass for a queue name, and an
 * instance must take only the cancels of its own session. Nor must the enqueue of a task with a fairness key, which
 * names its queue and key.
 */
class TaskNotificationsTests {

	private final UUID session = UUID.randomUUID();

	private final UUID task = UUID.randomUUID();

	@Test
	void aCancelIsNoQueueNameAndNamesItsSessionAndTask() {
		String payload = TaskNotifications.cancelPayload(this.session, this.task);
		assertThat(QueueName.isValid(payload)).isFalse();
		assertThat(TaskNotifications.cancelledTask(payload, this.session)).isEqualTo(this.task);
	}

	@Test
	void anotherSessionsCancelOrAQueueNameIsNoCancelHere() {
		String payload = TaskNotifications.cancelPayload(UUID.randomUUID(), this.task);
		assertThat(TaskNotifications.cancelledTask(payload, this.session)).isNull();
		assertThat(TaskNotifications.cancelledTask(payload, null)).isNull();
		assertThat(TaskNotifications.cancelledTask("emails", this.session)).isNull();
		assertThat(TaskNotifications.cancelledTask("cancel " + this.session + " not-a-uuid", this.session)).isNull();
		assertThat(TaskNotifications.cancelledTask("cancel " + this.session, this.session)).isNull();
	}

	@Test
	void aKeyedEnqueueIsNoQueueNameNorCancelAndNamesItsQueueAndKey() {
		String payload = TaskNotifications.keyedPayload("reports.daily", "customer 42: acme");
		assertThat(QueueName.isValid(payload)).isFalse();
		assertThat(TaskNotifications.cancelledTask(payload, this.session)).isNull();
		assertThat(TaskNotifications.keyedEnqueue(payload))
			.isEqualTo(new TaskNotifications.KeyedEnqueue("reports.daily", "customer 42: acme"));
	}

	@Test
	void otherPayloadsNameNoKeyedEnqueue() {
		assertThat(TaskNotifications.keyedEnqueue("emails")).isNull();
		assertThat(TaskNotifications.keyedEnqueue(TaskNotifications.cancelPayload(this.session, this.task))).isNull();
		assertThat(TaskNotifications.keyedEnqueue("key emails")).isNull();
		assertThat(TaskNotifications.keyedEnqueue("key emails ")).isNull();
		assertThat(TaskNotifications.keyedEnqueue("key  tenant")).isNull();
	}

}
