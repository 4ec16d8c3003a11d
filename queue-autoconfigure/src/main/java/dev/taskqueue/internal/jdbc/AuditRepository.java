package dev.taskqueue.internal.jdbc;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The audit log ({@code taskqueue_audit}): one row per action of an operator, and the pages that list them newest
 * first. Statements join the current Spring-managed transaction, so an entry commits, or rolls back, with its action.
 */
public class AuditRepository {

	/** The longest target kept: a bulk action's filter holds text an operator typed. */
	static final int TARGET_LENGTH = 1000;

	/** The longest principal name kept. */
	static final int ACTOR_LENGTH = 200;

	/** How much of a target a page shows. */
	static final int TARGET_SHOWN = 400;

	// The time is the database's, as every other time of the dashboard, so the entries of several instances sort
	// together whatever their clocks. Texts are cut here, not by the callers, so the table stays bounded whoever
	// writes it.
	private static final String RECORD = """
			INSERT INTO %1$s (id, actor, via, action, target, row_count)
			VALUES (:id, left(:actor, %2$d), :via, :action, left(:target, %3$d), :rows)
			""";

	// One page, newest first, from a cursor (the last entry's time and id) on taskqueue_audit_acted_at_idx: no
	// OFFSET, so every page costs what the first does.
	private static final String FIRST_PAGE = """
			SELECT id, acted_at, actor, via, action, left(target, %2$d) AS target, row_count FROM %1$s
			ORDER BY acted_at DESC, id DESC LIMIT :limit
			""";

	private static final String NEXT_PAGE = """
			SELECT id, acted_at, actor, via, action, left(target, %2$d) AS target, row_count FROM %1$s
			WHERE (acted_at, id) < (:afterAt, :afterId)
			ORDER BY acted_at DESC, id DESC LIMIT :limit
			""";

	private final JdbcClient jdbc;

	private final String record;

	private final String firstPage;

	private final String nextPage;

	public AuditRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.record = RECORD.formatted(tables.audit(), ACTOR_LENGTH, TARGET_LENGTH);
		this.firstPage = FIRST_PAGE.formatted(tables.audit(), TARGET_SHOWN);
		this.nextPage = NEXT_PAGE.formatted(tables.audit(), TARGET_SHOWN);
	}

	/**
	 * Adds an entry, at the database's now.
	 * @param actor who acted: the principal's name, or what stands for it
	 * @param via how: {@code dashboard}, {@code actuator} or {@code api}
	 * @param action what, such as {@code retry-dead}
	 * @param target what it acted on, such as {@code queue emails}
	 * @param rows how many rows the action changed
	 */
	public void record(String actor, String via, String action, String target, long rows) {
		this.jdbc.sql(this.record)
			.param("id", UUID.randomUUID())
			.param("actor", actor)
			.param("via", via)
			.param("action", action)
			.param("target", target)
			.param("rows", rows)
			.update();
	}

	/**
	 * Up to {@code limit} entries, newest first.
	 * @param afterAt with {@code afterId}: only the entries after this one in that order, or {@code null} from the
	 * newest
	 */
	public List<Entry> page(@Nullable Instant afterAt, @Nullable UUID afterId, int limit) {
		JdbcClient.StatementSpec statement = (afterAt != null && afterId != null)
				? this.jdbc.sql(this.nextPage)
					.param("afterAt", OffsetDateTime.ofInstant(afterAt, ZoneOffset.UTC))
					.param("afterId", afterId)
				: this.jdbc.sql(this.firstPage);
		return statement.param("limit", limit)
			.query((rs, row) -> new Entry(rs.getObject("id", UUID.class),
					rs.getObject("acted_at", OffsetDateTime.class).toInstant(), rs.getString("actor"),
					rs.getString("via"), rs.getString("action"), rs.getString("target"), rs.getLong("row_count")))
			.list();
	}

	/**
	 * One entry of the audit log.
	 *
	 * @param id the entry's id, which orders entries of the same time
	 * @param actedAt when, on the database clock
	 * @param actor who
	 * @param via through what: the dashboard, the actuator endpoint or the API
	 * @param action what
	 * @param target on what, its first 400 characters
	 * @param rows how many rows it changed
	 */
	public record Entry(UUID id, Instant actedAt, String actor, String via, String action, String target, long rows) {
	}

}
