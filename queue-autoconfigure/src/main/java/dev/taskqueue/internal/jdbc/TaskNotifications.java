package dev.taskqueue.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;


/**
 * PostgreSQL {@code LISTEN/NOTIFY} as a wake-up for workers: each enqueue statement sends the queue's name on a
 * channel of this schema's tables (see {@link EnqueueRepository}), and committing delivers it. Only a hint: polling
 * still finds every task. The cancel of a running task sends {@link #cancelPayload} on the same channel, which no
 * queue name can be (it has spaces), so that the instance running it interrupts its handler at once; its heartbeat
 * reads the request all the same. The enqueue of one task with a fairness key sends {@link #keyedPayload} instead of
 * the queue's name, which names the key too, so that a worker that claims the queue in one key's order can claim that
 * key's task from its listening thread without asking which key showed up (docs/fairness.md).
 */
public class TaskNotifications {

	private static final String CANCEL = "cancel ";

	private static final String KEYED = "key ";

	private final String channel;

	public TaskNotifications(TaskTables tables) {
		this.channel = channel(tables);
	}

	/** Starts listening on {@code connection}, which must stay open and unused by anything else. */
	public Listener listen(Connection connection) throws SQLException {
		PGConnection postgres = connection.unwrap(PGConnection.class);
		try (Statement statement = connection.createStatement()) {
			statement.execute("LISTEN " + this.channel);
		}
		return (timeoutMillis) -> {
			PGNotification[] notifications = postgres.getNotifications(timeoutMillis);
			List<String> payloads = new ArrayList<>();
			if (notifications != null) {
				for (PGNotification notification : notifications) {
					payloads.add(notification.getParameter());
				}
			}
			return payloads;
		};
	}

	/** What the cancel of task {@code task}, run by session {@code session}, sends on the channel. */
	static String cancelPayload(UUID session, UUID task) {
		return CANCEL + session + " " + task;
	}

	/**
	 * The task whose cancel {@code payload} (what {@link Listener#await} returned) tells, if it is for
	 * {@code session}; {@code null} for any other payload.
	 */
	public static @Nullable UUID cancelledTask(String payload, @Nullable UUID session) {
		if (session == null || !payload.startsWith(CANCEL)) {
			return null;
		}
		String[] parts = payload.split(" ");
		try {
			return (parts.length == 3 && UUID.fromString(parts[1]).equals(session)) ? UUID.fromString(parts[2]) : null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/**
	 * What the enqueue of a task of {@code queue} with fairness key {@code key} sends on the channel: its queue and
	 * its key (a queue name has no space; the key is the rest, spaces and all).
	 */
	public static String keyedPayload(String queue, String key) {
		return KEYED + queue + " " + key;
	}

	/**
	 * The queue and fairness key a {@link #keyedPayload} (what {@link Listener#await} returned) tells; {@code null}
	 * for any other payload.
	 */
	public static @Nullable KeyedEnqueue keyedEnqueue(String payload) {
		if (!payload.startsWith(KEYED)) {
			return null;
		}
		int space = payload.indexOf(' ', KEYED.length());
		return (space > KEYED.length() && space < payload.length() - 1)
				? new KeyedEnqueue(payload.substring(KEYED.length(), space), payload.substring(space + 1)) : null;
	}

	/**
	 * What a {@link #keyedPayload} tells.
	 *
	 * @param queue the queue that got a task
	 * @param fairnessKey the task's fairness key
	 */
	public record KeyedEnqueue(String queue, String fairnessKey) {
	}

	/** The channel the enqueues into {@code tables} notify on. */
	public static String channel(TaskTables tables) {
		return (tables.schema() != null) ? "taskqueue_" + tables.schema().toLowerCase() : "taskqueue";
	}

	/** The channel this schema's enqueues notify on. */
	public String channel() {
		return this.channel;
	}

	/** Receives notifications on a listening connection. */
	@FunctionalInterface
	public interface Listener {

		/**
		 * Waits up to {@code timeoutMillis} for notifications and returns what they carry: the queues that got tasks,
		 * and cancels of running tasks ({@link #cancelledTask}).
		 */
		List<String> await(int timeoutMillis) throws SQLException;

	}

}
