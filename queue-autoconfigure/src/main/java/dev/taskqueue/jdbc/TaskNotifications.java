package dev.taskqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * PostgreSQL {@code LISTEN/NOTIFY} as a wake-up for workers: the enqueue transaction sends the queue's name on a
 * channel of this schema's tables, and committing delivers it. Only a hint: polling still finds every task.
 */
public class TaskNotifications {

	private static final String NOTIFY = """
			SELECT pg_notify(:channel, :queue)
			""";

	private final JdbcClient jdbc;

	private final String channel;

	public TaskNotifications(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.channel = (tables.schema() != null) ? "taskqueue_" + tables.schema().toLowerCase() : "taskqueue";
	}

	/** Sends {@code queue} on the channel, in the current transaction when there is one. */
	public void notify(String queue) {
		this.jdbc.sql(NOTIFY).param("channel", this.channel).param("queue", queue).query((rs, row) -> null).list();
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
