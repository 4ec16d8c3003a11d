package dev.taskqueue.internal.schedule;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.ScheduleInfo;
import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.SqlArrayValue;

/**
 * The {@code taskqueue_schedule} rows of recurring schedules. A tick is a compare-and-set of {@code next_run_at}
 * on the row: of several instances that try the same tick, one updates the row and the others find 0 rows.
 */
final class ScheduleRepository {

	// A declaration from code wins: it updates queue, payload and options; it keeps next_run_at unless what the
	// schedule runs on changed.
	private static final String DECLARE = """
			INSERT INTO %1$s AS s (name, queue, spec, payload, missed_ticks, overlap, next_run_at)
			VALUES (:name, :queue, :spec, CAST(:payload AS jsonb), :missed, :overlap, :first)
			ON CONFLICT (name) DO UPDATE SET
			    next_run_at = CASE WHEN s.spec = excluded.spec THEN s.next_run_at ELSE excluded.next_run_at END,
			    changed_at = CASE WHEN (s.spec, s.queue, s.payload, s.missed_ticks, s.overlap)
			        = (excluded.spec, excluded.queue, excluded.payload, excluded.missed_ticks, excluded.overlap)
			        THEN s.changed_at ELSE now() END,
			    spec = excluded.spec, queue = excluded.queue, payload = excluded.payload,
			    missed_ticks = excluded.missed_ticks, overlap = excluded.overlap, declared_at = now(), seen_at = now()""";

	private static final String STATES = """
			SELECT name, spec, next_run_at, now() AS now,
			       CASE WHEN next_run_at IS NULL
			            THEN NOT EXISTS (SELECT 1 FROM %2$s t WHERE t.id = s.last_task_id) END AS last_task_done
			FROM %1$s s WHERE name = ANY(:names) AND NOT paused""";

	// The tick itself: only the instance whose UPDATE finds the row still due at :due moves it on.
	private static final String TICK = """
			UPDATE %1$s SET next_run_at = :next, last_tick_at = :due, missed = missed + :missed
			WHERE name = :name AND next_run_at = :due AND spec = :spec AND NOT paused""";

	private static final String RECORD_TASK = """
			UPDATE %1$s SET last_task_id = :taskId, ticks = ticks + 1 WHERE name = :name""";

	private static final String RECORD_SKIP = "UPDATE %1$s SET skipped = skipped + 1 WHERE name = :name";

	private static final String RELEASE_DELAY = """
			UPDATE %1$s s SET next_run_at = now() + make_interval(secs => :delaySeconds)
			WHERE name = :name AND next_run_at IS NULL AND spec = :spec
			  AND NOT EXISTS (SELECT 1 FROM %2$s t WHERE t.id = s.last_task_id)""";

	private static final String SEEN = "UPDATE %1$s SET seen_at = now() WHERE name = ANY(:names)";

	private static final String LIST = """
			SELECT name, queue, spec, next_run_at, paused, seen_at > now() - make_interval(secs => :timeoutSeconds)
			       AS declared, last_tick_at, last_task_id, ticks, skipped, missed
			FROM %1$s ORDER BY name""";

	// Ticks due while a schedule was paused become one tick, due at its resumption.
	private static final String PAUSE = """
			UPDATE %1$s SET paused = :paused, changed_at = now(),
			    next_run_at = CASE WHEN NOT :paused AND paused AND next_run_at < now() THEN now() ELSE next_run_at END
			WHERE name = :name""";

	private static final String TRIGGER_SOURCE = """
			SELECT queue, payload::text AS payload, overlap, now() AS now FROM %1$s WHERE name = :name""";

	private final JdbcClient jdbc;

	private final String table;

	private final String taskTable;

	ScheduleRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.table = (tables.schema() != null) ? '"' + tables.schema() + "\".taskqueue_schedule" : "taskqueue_schedule";
		this.taskTable = tables.task();
	}

	/** The database's clock. */
	Instant now() {
		return this.jdbc.sql("SELECT now()").query(OffsetDateTime.class).single().toInstant();
	}

	/** Inserts or updates the row of a schedule this instance declares. */
	void declare(String name, String queue, String spec, String payload, String missed, String overlap,
			Instant first) {
		this.jdbc.sql(sql(DECLARE))
			.param("name", name)
			.param("queue", queue)
			.param("spec", spec)
			.param("payload", payload)
			.param("missed", missed)
			.param("overlap", overlap)
			.param("first", timestamp(first))
			.update();
	}

	/** Where the schedules {@code names} stand, the paused ones left out. */
	List<ScheduleState> states(Collection<String> names) {
		return this.jdbc.sql(sql(STATES))
			.param("names", new SqlArrayValue("text", names.toArray()))
			.query((rs, row) -> new ScheduleState(rs.getString("name"), rs.getString("spec"),
					instant(rs, "next_run_at"), instant(rs, "now"), rs.getBoolean("last_task_done")))
			.list();
	}

	/**
	 * Moves the schedule from the tick due at {@code due} to {@code next} ({@code null}: waits for the task).
	 * @return whether this call made the tick; {@code false} when another instance did, or the schedule changed
	 */
	boolean tick(String name, String spec, Instant due, @Nullable Instant next, boolean missed) {
		return this.jdbc.sql(sql(TICK))
			.param("name", name)
			.param("spec", spec)
			.param("due", timestamp(due))
			.param("next", (next != null) ? timestamp(next) : null, java.sql.Types.TIMESTAMP_WITH_TIMEZONE)
			.param("missed", missed ? 1 : 0)
			.update() == 1;
	}

	/** Records the task a tick or a trigger enqueued. */
	void recordTask(String name, UUID taskId) {
		this.jdbc.sql(sql(RECORD_TASK)).param("taskId", taskId).param("name", name).update();
	}

	/** Counts a tick not started because the previous tick's task still waits or runs. */
	void recordSkip(String name) {
		this.jdbc.sql(sql(RECORD_SKIP)).param("name", name).update();
	}

	/** Makes the next tick of a fixed-delay schedule due {@code delay} from now, once its last task is gone. */
	boolean releaseDelay(String name, String spec, Duration delay) {
		return this.jdbc.sql(sql(RELEASE_DELAY))
			.param("name", name)
			.param("spec", spec)
			.param("delaySeconds", delay.toNanos() / 1e9)
			.update() == 1;
	}

	/** Marks {@code names} as declared by a running instance. */
	void seen(Collection<String> names) {
		this.jdbc.sql(sql(SEEN)).param("names", new SqlArrayValue("text", names.toArray())).update();
	}

	/** Every schedule; declared when an instance marked it within {@code sessionTimeout}. */
	List<ScheduleInfo> list(Duration sessionTimeout) {
		return this.jdbc.sql(sql(LIST))
			.param("timeoutSeconds", sessionTimeout.toNanos() / 1e9)
			.query((rs, row) -> new ScheduleInfo(rs.getString("name"), rs.getString("queue"), rs.getString("spec"),
					instant(rs, "next_run_at"), rs.getBoolean("paused"), rs.getBoolean("declared"),
					instant(rs, "last_tick_at"), rs.getObject("last_task_id", UUID.class), rs.getLong("ticks"),
					rs.getLong("skipped"), rs.getLong("missed")))
			.list();
	}

	/** @return whether the schedule exists */
	boolean setPaused(String name, boolean paused) {
		return this.jdbc.sql(sql(PAUSE)).param("paused", paused).param("name", name).update() == 1;
	}

	/** What a trigger of the schedule enqueues, and the database's clock; empty when there is no such schedule. */
	Optional<TriggerSource> triggerSource(String name) {
		return this.jdbc.sql(sql(TRIGGER_SOURCE))
			.param("name", name)
			.query((rs, row) -> new TriggerSource(rs.getString("queue"), rs.getString("payload"),
					"SKIP".equals(rs.getString("overlap")), instant(rs, "now")))
			.optional();
	}

	private String sql(String template) {
		return template.formatted(this.table, this.taskTable);
	}

	private static OffsetDateTime timestamp(Instant instant) {
		return OffsetDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
	}

	private static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
		OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	/**
	 * One declared schedule that is not paused.
	 *
	 * @param nextRunAt its next tick, {@code null} while a fixed-delay schedule waits for its task
	 * @param now the database's clock
	 * @param lastTaskDone for a schedule waiting for its task, whether that task has finished
	 */
	record ScheduleState(String name, String spec, @Nullable Instant nextRunAt, Instant now,
			boolean lastTaskDone) {
	}

	/** What a trigger enqueues. */
	record TriggerSource(String queue, String payload, boolean keyed, Instant now) {
	}

}
