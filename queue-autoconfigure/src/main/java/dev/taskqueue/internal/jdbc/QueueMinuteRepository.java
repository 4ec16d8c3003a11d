package dev.taskqueue.internal.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Completed and failed attempts per queue and minute ({@code taskqueue_queue_minute}), which each instance adds to
 * every few seconds and the dashboard's charts read. Minutes are those of the database clock, so instances whose
 * clocks differ add to the same rows.
 */
public class QueueMinuteRepository {

	/*
	 * One statement for all queues. Rows are taken in queue order, so two instances adding to the same minutes lock
	 * them in the same order and never deadlock. The counts come as one JSON array (JdbcClient would expand a Java
	 * array into a list of parameters).
	 */
	private static final String ADD = """
			INSERT INTO %1$s AS m (queue, minute, completed, failed)
			SELECT queue, date_trunc('minute', now()), completed, failed
			FROM jsonb_to_recordset(:counts::jsonb) AS c(queue text, completed bigint, failed bigint)
			ORDER BY queue
			ON CONFLICT (queue, minute) DO UPDATE
			SET completed = m.completed + excluded.completed, failed = m.failed + excluded.failed
			""";

	private static final String PRUNE = """
			DELETE FROM %1$s WHERE minute < now() - :keepMicros * interval '1 microsecond'
			""";

	private static final String RECENT = """
			SELECT queue, (extract(epoch FROM date_trunc('minute', now()) - minute) / 60)::int AS minutes_ago,
			       completed, failed
			FROM %1$s WHERE minute > date_trunc('minute', now()) - :minutes * interval '1 minute'
			ORDER BY queue, minute
			""";

	private final JdbcClient jdbc;

	private final String add;

	private final String prune;

	private final String recent;

	public QueueMinuteRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.add = ADD.formatted(tables.queueMinute());
		this.prune = PRUNE.formatted(tables.queueMinute());
		this.recent = RECENT.formatted(tables.queueMinute());
	}

	/** Adds the counts, one entry per queue, to the current minute. */
	public void add(List<QueueCount> counts) {
		if (counts.isEmpty()) {
			return;
		}
		StringBuilder json = new StringBuilder("[");
		for (QueueCount count : counts) {
			// Queue names are letters, digits and . _ - : only (QueueName): nothing in them needs escaping.
			json.append((json.length() > 1) ? "," : "")
				.append("{\"queue\":\"")
				.append(count.queue())
				.append("\",\"completed\":")
				.append(count.completed())
				.append(",\"failed\":")
				.append(count.failed())
				.append('}');
		}
		this.jdbc.sql(this.add).param("counts", json.append(']').toString()).update();
	}

	/** Deletes the minutes older than {@code keep}; returns how many rows. */
	public int prune(Duration keep) {
		return this.jdbc.sql(this.prune).param("keepMicros", Micros.of(keep)).update();
	}

	/** The counts of the last {@code minutes} minutes, the current one included, by queue then minute. */
	public List<MinuteCount> recent(int minutes) {
		return this.jdbc.sql(this.recent).param("minutes", minutes).query(QueueMinuteRepository::minute).list();
	}

	private static MinuteCount minute(ResultSet rs, int row) throws SQLException {
		return new MinuteCount(rs.getString("queue"), rs.getInt("minutes_ago"), rs.getLong("completed"),
				rs.getLong("failed"));
	}

	/** What one instance adds for one queue. */
	public record QueueCount(String queue, long completed, long failed) {
	}

	/**
	 * The counts of one queue in one minute.
	 * @param minutesAgo 0 for the current minute, 1 for the one before, and so on
	 */
	public record MinuteCount(String queue, int minutesAgo, long completed, long failed) {
	}

}
