package dev.taskqueue.internal.worker;

import java.sql.Types;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.AttemptLog;
import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Worker sessions: one row per running instance, kept alive by heartbeats on the database clock. Every statement
 * here runs in its own transaction (auto-commit), never in a caller's.
 */
class SessionRepository {

	// queues: what the instance has handlers for, read by operators (QueueStatsRepository.HANDLED_QUEUES) to tell a
	// queue nobody handles. NULL for a session that handles nothing of its own accord (TaskRunner).
	private static final String REGISTER = """
			INSERT INTO %1$s (id, name, queues) VALUES (:id, :name, CAST(:queues AS text[]))
			""";

	// Rewrites the queues with every beat, so that a handler bean created after the session opened shows too; the
	// row is updated anyway, and an array of a few names costs the update nothing to speak of.
	private static final String HEARTBEAT = """
			UPDATE %1$s SET heartbeat_at = now(), queues = coalesce(CAST(:queues AS text[]), queues) WHERE id = :id
			""";

	// Deletes the sessions that stopped beating and, in the same statement, makes their tasks ready again at once.
	// Tasks whose session is already gone (a claim that raced with the delete) are released too. The attempt stays
	// counted, so a task that keeps killing its worker ends in the dead letters. A task released keeps its place as
	// its ordering key's head. Tasks held behind their key (claimed_by is the nil UUID, which sorts first; see
	// OrderedKeys) are no session's: "> nil" leaves them out and keeps the scan of the claimed index off them.
	// The cancel requests of tasks that expired sessions ran go too (%3$s): nobody else acts on them, and a cancel that
	// raced with the delete of its session leaves one whose session is gone already.
	// Each task released logs its attempt as lost (%4$s, AttemptLog), with the name of the expired instance.
	private static final String EXPIRE = """
			WITH expired AS (
			    DELETE FROM %1$s WHERE heartbeat_at < now() - :timeoutMicros * interval '1 microsecond'
			    RETURNING id, name),
			forgotten AS (
			    DELETE FROM %3$s c WHERE c.session_id IN (SELECT id FROM expired)
			       OR NOT EXISTS (SELECT 1 FROM %1$s s WHERE s.id = c.session_id))
			UPDATE %2$s t SET claimed_by = NULL, claimed_at = NULL, attempt_log = %4$s
			WHERE t.claimed_by > uuid '00000000-0000-0000-0000-000000000000'
			  AND (t.claimed_by IN (SELECT id FROM expired)
			       OR NOT EXISTS (SELECT 1 FROM %1$s s WHERE s.id = t.claimed_by))
			""";

	private static final String END = """
			WITH ended AS (DELETE FROM %1$s WHERE id = :id RETURNING id),
			forgotten AS (DELETE FROM %3$s WHERE session_id = :id)
			UPDATE %2$s t SET claimed_by = NULL, claimed_at = NULL
			WHERE t.claimed_by = :id
			""";

	// The running tasks of a session that operators cancelled (QueueRepository#cancel), read with every heartbeat:
	// one probe of an index that is empty unless a cancel is under way.
	private static final String CANCEL_REQUESTS = """
			SELECT task_id FROM %1$s WHERE session_id = :session
			""";

	private final JdbcClient jdbc;

	private final String cancelRequests;

	private final String register;

	private final String heartbeat;

	private final String expire;

	private final String end;

	public SessionRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.register = REGISTER.formatted(tables.session());
		this.heartbeat = HEARTBEAT.formatted(tables.session());
		this.expire = EXPIRE.formatted(tables.session(), tables.task(), tables.cancelRequest(),
				AttemptLog.append("t", "(SELECT e.name FROM expired e WHERE e.id = t.claimed_by)",
						"'" + AttemptLog.LOST + "'", "NULL"));
		this.end = END.formatted(tables.session(), tables.task(), tables.cancelRequest());
		this.cancelRequests = CANCEL_REQUESTS.formatted(tables.cancelRequest());
	}

	/** Opens a session that records no handled queues. */
	public void register(UUID id, String name) {
		register(id, name, null);
	}

	/** Opens session {@code id}, handling {@code queues} ({@code null}: not recorded). */
	public void register(UUID id, String name, @Nullable Collection<String> queues) {
		this.jdbc.sql(this.register).param("id", id).param("name", name).param("queues", array(queues), Types.ARRAY)
			.update();
	}

	/** Records that session {@code id} is alive; {@code false} when it has been expired by another instance. */
	public boolean heartbeat(UUID id) {
		return heartbeat(id, null);
	}

	/**
	 * Records that session {@code id} is alive and handles {@code queues} ({@code null}: as before).
	 * @return {@code false} when it has been expired by another instance
	 */
	public boolean heartbeat(UUID id, @Nullable Collection<String> queues) {
		return this.jdbc.sql(this.heartbeat).param("id", id).param("queues", array(queues), Types.ARRAY).update() == 1;
	}

	private static String @Nullable [] array(@Nullable Collection<String> queues) {
		return (queues != null) ? queues.stream().sorted().toArray(String[]::new) : null;
	}

	/**
	 * Deletes every session silent for longer than {@code timeout} and makes their tasks ready again.
	 * @return how many tasks were released
	 */
	public int expire(Duration timeout) {
		return this.jdbc.sql(this.expire)
			.param("timeoutMicros", timeout.toNanos() / 1000, Types.BIGINT)
			.update();
	}

	/**
	 * The tasks claimed by session {@code id} that were cancelled while it ran them and whose attempts it has not
	 * ended yet ({@link TaskRepository#endCancelled}).
	 */
	public Set<UUID> cancelRequests(UUID id) {
		return Set.copyOf(this.jdbc.sql(this.cancelRequests).param("session", id).query(UUID.class).list());
	}

	/** Ends session {@code id}, releasing any task it still holds. */
	public int end(UUID id) {
		return this.jdbc.sql(this.end).param("id", id).update();
	}

}
