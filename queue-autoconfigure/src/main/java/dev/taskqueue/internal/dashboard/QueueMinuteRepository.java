package dev.taskqueue.internal.dashboard;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Completed and failed attempts per queue and minute ({@code taskqueue_queue_minute}), which each instance adds to
 * every few seconds, with the ready tasks and the oldest one's wait as an instance sampled them once that minute; the
 * dashboard's charts and trends read them. Minutes are those of the database clock, so instances whose clocks differ
 * add to the same rows.
 */
final class QueueMinuteRepository {

	/*
	 * One statement for all queues. Rows are taken in queue order, so two instances adding to the same minutes lock
	 * them in the same order and never deadlock. The counts come as one JSON array (JdbcClient would expand a Java
	 * array into a list of parameters).
	 */
	/*
	 * A sample (ready, oldest_ready_seconds) is null in the rows of a flush that took none; when several instances
	 * sample the same minute, the highest figures stay (written out: GREATEST's handling of NULL is not the same
	 * on every database).
	 */
	private static final String ADD = """
			INSERT INTO %1$s AS m (queue, minute, completed, failed, ready, oldest_ready_seconds)
			SELECT queue, date_trunc('minute', now()), completed, failed, ready, oldest_ready_seconds
			FROM jsonb_to_recordset(:counts::jsonb)
			     AS c(queue text, completed bigint, failed bigint, ready bigint, oldest_ready_seconds bigint)
			ORDER BY queue
			ON CONFLICT (queue, minute) DO UPDATE
			SET completed = m.completed + excluded.completed, failed = m.failed + excluded.failed,
			    ready = CASE WHEN excluded.ready IS NULL OR m.ready > excluded.ready THEN m.ready
			                 ELSE excluded.ready END,
			    oldest_ready_seconds = CASE WHEN excluded.oldest_ready_seconds IS NULL
			                                  OR m.oldest_ready_seconds > excluded.oldest_ready_seconds
			                                THEN m.oldest_ready_seconds ELSE excluded.oldest_ready_seconds END
			""";

	private static final String PRUNE = """
			DELETE FROM %1$s WHERE minute < now() - :keepMicros * interval '1 microsecond'
			""";

	private static final String RECENT = """
			SELECT queue, (extract(epoch FROM date_trunc('minute', now()) - minute) / 60)::int AS minutes_ago,
			       completed, failed, ready, oldest_ready_seconds
			FROM %1$s WHERE minute > date_trunc('minute', now()) - :minutes * interval '1 minute'
			ORDER BY queue, minute
			""";

	private static final String RECENT_OF_QUEUE = """
			SELECT queue, (extract(epoch FROM date_trunc('minute', now()) - minute) / 60)::int AS minutes_ago,
			       completed, failed, ready, oldest_ready_seconds
			FROM %1$s WHERE queue = :queue AND minute > date_trunc('minute', now()) - :minutes * interval '1 minute'
			ORDER BY minute
			""";

	private final JdbcClient jdbc;

	private final String add;

	private final String prune;

	private final String recent;

	private final String recentOfQueue;

	QueueMinuteRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.add = ADD.formatted(tables.queueMinute());
		this.prune = PRUNE.formatted(tables.queueMinute());
		this.recent = RECENT.formatted(tables.queueMinute());
		this.recentOfQueue = RECENT_OF_QUEUE.formatted(tables.queueMinute());
	}

	/** Adds the counts, one entry per queue, to the current minute, with the samples they carry. */
	void add(List<QueueCount> counts) {
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
				.append(",\"ready\":")
				.append(count.ready())
				.append(",\"oldest_ready_seconds\":")
				.append(count.oldestReadySeconds())
				.append('}');
		}
		this.jdbc.sql(this.add).param("counts", json.append(']').toString()).update();
	}

	/** Deletes the minutes older than {@code keep}; returns how many rows. */
	int prune(Duration keep) {
		return this.jdbc.sql(this.prune).param("keepMicros", keep.toNanos() / 1000).update();
	}

	/** The counts of the last {@code minutes} minutes, the current one included, by queue then minute. */
	List<MinuteCount> recent(int minutes) {
		return this.jdbc.sql(this.recent).param("minutes", minutes).query(QueueMinuteRepository::minute).list();
	}

	/** The counts of one queue over the last {@code minutes} minutes, the current one included, oldest first. */
	List<MinuteCount> recent(String queue, int minutes) {
		return this.jdbc.sql(this.recentOfQueue)
			.param("queue", queue)
			.param("minutes", minutes)
			.query(QueueMinuteRepository::minute)
			.list();
	}

	private static MinuteCount minute(ResultSet rs, int row) throws SQLException {
		return new MinuteCount(rs.getString("queue"), rs.getInt("minutes_ago"), rs.getLong("completed"),
				rs.getLong("failed"), rs.getObject("ready", Long.class),
				rs.getObject("oldest_ready_seconds", Long.class));
	}

	/**
	 * What one instance adds for one queue: its counts since the last flush and, once a minute, a sample of the
	 * queue's ready tasks.
	 * @param ready how many of the queue's tasks were ready when sampled, {@code null} when not sampled
	 * @param oldestReadySeconds how long the oldest ready task had waited then, {@code null} when not sampled
	 */
	record QueueCount(String queue, long completed, long failed, @Nullable Long ready,
			@Nullable Long oldestReadySeconds) {

		QueueCount(String queue, long completed, long failed) {
			this(queue, completed, failed, null, null);
		}

	}

	/**
	 * The counts of one queue in one minute.
	 * @param minutesAgo 0 for the current minute, 1 for the one before, and so on
	 * @param ready the highest sample of the queue's ready tasks that minute, {@code null} when none was taken
	 * @param oldestReadySeconds the highest sample of the oldest ready task's wait, {@code null} when none was taken
	 */
	record MinuteCount(String queue, int minutesAgo, long completed, long failed, @Nullable Long ready,
			@Nullable Long oldestReadySeconds) {

		MinuteCount(String queue, int minutesAgo, long completed, long failed) {
			this(queue, minutesAgo, completed, failed, null, null);
		}

	}

}
