package dev.taskqueue.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;


/**
 * PostgreSQL {@code LISTEN/NOTIFY} as a wake-up for workers: each enqueue statement sends the queue's name on a
 * channel of this schema's tables (see {@link EnqueueRepository}), and committing delivers it. Only a hint: polling
 * still finds every task.
 */
public class TaskNotifications {

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
			List<String> queues = new ArrayList<>();
			if (notifications != null) {
				for (PGNotification notification : notifications) {
					queues.add(notification.getParameter());
				}
			}
			return queues;
		};
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

		/** Waits up to {@code timeoutMillis} for notifications and returns the queues they name. */
		List<String> await(int timeoutMillis) throws SQLException;

	}

}
