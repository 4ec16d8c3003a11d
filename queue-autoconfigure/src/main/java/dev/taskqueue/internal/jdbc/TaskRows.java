package dev.taskqueue.internal.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import org.jspecify.annotations.Nullable;

/**
 * New tasks' columns as statement parameters: one task bound by position, or many as the arrays an
 * {@code unnest} insert takes, one element per task.
 */
final class TaskRows {

	final UUID[] ids;

	final String[] queues;

	final String[] payloads;

	final Integer[] priorities;

	final @Nullable Long[] runAtMicros;

	final Long[] delayMicros;

	final String[] headers;

	/** Each task's bucket (see {@link TaskBuckets}). */
	final Short[] buckets;

	TaskRows(List<NewTask> tasks, TaskBuckets taskBuckets) {
		int n = tasks.size();
		this.ids = new UUID[n];
		this.queues = new String[n];
		this.payloads = new String[n];
		this.priorities = new Integer[n];
		this.runAtMicros = new Long[n];
		this.delayMicros = new Long[n];
		this.headers = new String[n];
		this.buckets = new Short[n];
		for (int i = 0; i < n; i++) {
			NewTask task = tasks.get(i);
			this.ids[i] = task.id();
			this.queues[i] = task.queue();
			this.payloads[i] = task.payload();
			this.priorities[i] = task.priority();
			this.runAtMicros[i] = Micros.sinceEpoch(task.runAt());
			this.delayMicros[i] = Micros.of(task.delay());
			this.headers[i] = task.headers();
			this.buckets[i] = (short) taskBuckets.bucketOf(task.queue(), task.id());
		}
	}

	/**
	 * Binds id, queue, payload, priority, run-at and delay (in microseconds), headers and bucket from {@code first}
	 * on: 8 parameters.
	 */
	static void bind(PreparedStatement statement, int first, NewTask task, TaskBuckets buckets) throws SQLException {
		statement.setObject(first, task.id());
		statement.setString(first + 1, task.queue());
		statement.setString(first + 2, task.payload());
		statement.setInt(first + 3, task.priority());
		Micros.bind(statement, first + 4, Micros.sinceEpoch(task.runAt()));
		statement.setLong(first + 5, Micros.of(task.delay()));
		statement.setString(first + 6, task.headers());
		statement.setInt(first + 7, buckets.bucketOf(task.queue(), task.id()));
	}

}
