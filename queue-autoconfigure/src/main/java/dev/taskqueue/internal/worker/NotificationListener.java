package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskNotifications;
import dev.taskqueue.internal.support.DatabaseOutage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Holds one connection that {@code LISTEN}s for enqueues and wakes the claim loop when a queue of this instance
 * got tasks, and hears the cancels of running tasks on the same channel. The enqueue of a task with a fairness key
 * names the key ({@link TaskNotifications#keyedPayload}): this thread first offers it to the claim of that key's
 * tasks ({@link NotifiedKeyClaims}), which takes it off the claim loop's path, and wakes the loop only when that
 * claimed nothing.
 * When the connection breaks it reconnects, waking the loop once in case a notification was missed.
 */
final class NotificationListener implements Runnable {

	private static final Log logger = LogFactory.getLog(NotificationListener.class);

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private final DatabaseOutage outage;

	private final DataSource dataSource;

	private final TaskNotifications notifications;

	private final Set<String> queues;

	private final Runnable wakeUp;

	/** Claims the tasks of a fairness key named by an enqueue of a queue and that key; whether it claimed any. */
	private final BiPredicate<String, String> claimKey;

	/** Told what other notifications carry: the cancels of running tasks. */
	private final Consumer<String> others;

	private final Duration retryDelay;

	private volatile boolean running = true;

	NotificationListener(DataSource dataSource, TaskNotifications notifications, Set<String> queues, Runnable wakeUp,
			BiPredicate<String, String> claimKey, Consumer<String> others, Duration retryDelay, DatabaseOutage outage) {
		this.claimKey = claimKey;
		this.others = others;
		this.dataSource = dataSource;
		this.outage = outage;
		this.notifications = notifications;
		this.queues = queues;
		this.wakeUp = wakeUp;
		this.retryDelay = retryDelay;
	}

	@Override
	public void run() {
		boolean failedBefore = false;
		while (this.running) {
			try (Connection connection = this.dataSource.getConnection()) {
				TaskNotifications.Listener listener = this.notifications.listen(connection);
				if (failedBefore) {
					logger.info("TaskQueue listens on channel '" + this.notifications.channel() + "' again");
					this.wakeUp.run();
				}
				failedBefore = false;
				while (this.running) {
					List<String> notified = listener.await(500);
					boolean wake = false;
					for (String payload : notified) {
						TaskNotifications.KeyedEnqueue keyed = TaskNotifications.keyedEnqueue(payload);
						if (this.queues.contains(payload)) {
							wake = true;
						}
						else if (keyed != null) {
							if (this.queues.contains(keyed.queue())) {
								wake |= !this.claimKey.test(keyed.queue(), keyed.fairnessKey());
							}
						}
						else {
							this.others.accept(payload);
						}
					}
					if (wake) {
						this.wakeUp.run();
					}
				}
			}
			catch (SQLException | RuntimeException ex) {
				if (!this.running) {
					return;
				}
				if (!failedBefore && !this.outage.failed("listen for enqueues", ex)) {
					logger.warn("TaskQueue lost its LISTEN connection, polling until it is back: "
							+ ErrorText.summary(ex));
				}
				failedBefore = true;
				try {
					Thread.sleep(this.retryDelay.toMillis());
				}
				catch (InterruptedException interrupted) {
					return;
				}
			}
		}
	}

	/** Stops listening within one wait of 500 ms. */
	void stop() {
		this.running = false;
	}

}
