package dev.taskqueue.internal.dashboard;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Reads the audit log ({@code taskqueue_audit}) for its page, newest first; the operations write it
 * ({@code operations/AuditRepository}).
 */
final class AuditEntries {

	/** How much of a target a page shows. */
	static final int TARGET_SHOWN = 400;

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

	private final String firstPage;

	private final String nextPage;

	AuditEntries(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.firstPage = FIRST_PAGE.formatted(tables.audit(), TARGET_SHOWN);
		this.nextPage = NEXT_PAGE.formatted(tables.audit(), TARGET_SHOWN);
	}

	/**
	 * Up to {@code limit} entries, newest first.
	 * @param afterAt with {@code afterId}: only the entries after this one in that order, or {@code null} from the
	 * newest
	 */
	List<Entry> page(@Nullable Instant afterAt, @Nullable UUID afterId, int limit) {
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
	record Entry(UUID id, Instant actedAt, String actor, String via, String action, String target, long rows) {
	}

}
