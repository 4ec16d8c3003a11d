package dev.taskqueue.internal.operations;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Reads, on PostgreSQL, what makes a queue table bloat and who keeps VACUUM from cleaning it: each task table's
 * dead and live rows and size, and the oldest holder of the database's xmin horizon (docs/operations.md#bloat).
 * One statement that reads statistics views and catalogs only, never the tables themselves, so its cost does not
 * grow with the backlog or the bloat.
 */
final class BloatRepository {

	/*
	 * The tables' figures come from the cumulative statistics (pg_stat_user_tables: what the server counted, not a
	 * scan) and pg_total_relation_size (the size of the files: heap, indexes and TOAST).
	 * The horizon: VACUUM removes a dead row only once no transaction can still see it, and the oldest of these
	 * holds it for every table of the database. Three kinds of holders:
	 * - sessions of this database (and those of none: a walsender reporting a standby's hot_standby_feedback) with a
	 *   snapshot (backend_xmin) or a transaction id (backend_xid: an idle transaction that wrote); autovacuum's own
	 *   workers are left out, VACUUM does not wait for them. Sessions of other roles show their xmin only to roles
	 *   with pg_read_all_stats (or superuser): without it they are not seen;
	 * - prepared transactions of this database (PREPARE TRANSACTION left without COMMIT PREPARED);
	 * - replication slots with an xmin (a physical slot of a standby with hot_standby_feedback), of any database.
	 * The oldest is the one whose xid is oldest (age(), since xid has no ordering); its start (the transaction's,
	 * the preparation's) is read when the database knows it. Columns that could carry secrets (the query text) are
	 * not read at all.
	 */
	private static final String READ = """
			WITH holder AS (
			    SELECT h.kind, h.pid, h.application_name, h.client_address, h.state, h.since, h.xid_age, h.name, h.xmin
			    FROM (
			        SELECT 'session' AS kind, a.pid, a.application_name, host(a.client_addr) AS client_address,
			               a.state, a.xact_start AS since,
			               greatest(age(a.backend_xid), age(a.backend_xmin)) AS xid_age,
			               a.backend_type AS name, CAST(coalesce(a.backend_xmin, a.backend_xid) AS text) AS xmin
			        FROM pg_stat_activity a
			        WHERE (a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL)
			          AND a.pid <> pg_backend_pid()
			          AND a.backend_type <> 'autovacuum worker'
			          AND (a.datname = current_database() OR a.datname IS NULL)
			        UNION ALL
			        SELECT 'prepared transaction', NULL, NULL, NULL, NULL, p.prepared, age(p.transaction),
			               CAST(p.gid AS text), CAST(p.transaction AS text)
			        FROM pg_prepared_xacts p
			        WHERE p.database = current_database()
			        UNION ALL
			        SELECT 'replication slot', r.active_pid, NULL, NULL, NULL, NULL, age(r.xmin),
			               CAST(r.slot_name AS text), CAST(r.xmin AS text)
			        FROM pg_replication_slots r
			        WHERE r.xmin IS NOT NULL) h
			    ORDER BY h.xid_age DESC, h.since NULLS LAST
			    LIMIT 1)
			SELECT t.name AS table_name, coalesce(s.n_live_tup, 0) AS live, coalesce(s.n_dead_tup, 0) AS dead,
			       pg_total_relation_size(t.oid) AS size, greatest(s.last_vacuum, s.last_autovacuum) AS last_vacuum,
			       h.kind, h.pid, h.application_name, h.client_address, h.state, h.since, h.xid_age, h.name, h.xmin,
			       now() AS read_at
			FROM (VALUES ('taskqueue_task', to_regclass('%1$s')), ('taskqueue_dead_task', to_regclass('%2$s')),
			             ('taskqueue_history', to_regclass('%3$s'))) t (name, oid)
			LEFT JOIN pg_stat_user_tables s ON s.relid = t.oid
			LEFT JOIN holder h ON true
			WHERE t.oid IS NOT NULL
			ORDER BY t.name""";

	private final JdbcClient jdbc;

	private final String read;

	BloatRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.read = READ.formatted(tables.task(), tables.deadTask(), tables.history());
	}

	/** The task tables' figures and the horizon's oldest holder, as the database reports them now. */
	Reading read() {
		List<Table> tables = new ArrayList<>();
		Holder[] holder = new Holder[1];
		Instant[] readAt = new Instant[1];
		this.jdbc.sql(this.read).query((ResultSet rs) -> {
			tables.add(new Table(rs.getString("table_name"), rs.getLong("live"), rs.getLong("dead"),
					rs.getLong("size"), instant(rs, "last_vacuum")));
			readAt[0] = instant(rs, "read_at");
			if (holder[0] == null && rs.getString("kind") != null) {
				holder[0] = new Holder(rs.getString("kind"), (Integer) rs.getObject("pid"),
						rs.getString("application_name"), rs.getString("client_address"), rs.getString("state"),
						instant(rs, "since"), rs.getLong("xid_age"), rs.getString("name"), rs.getString("xmin"));
			}
		});
		return new Reading((readAt[0] != null) ? readAt[0] : Instant.now(), List.copyOf(tables), holder[0]);
	}

	private static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
		Timestamp timestamp = rs.getTimestamp(column);
		return (timestamp != null) ? timestamp.toInstant() : null;
	}

	/**
	 * What one read found.
	 *
	 * @param readAt when, on the database clock
	 * @param tables the task tables the schema has, by name
	 * @param holder the oldest holder of the xmin horizon, {@code null} when no transaction holds it
	 */
	record Reading(Instant readAt, List<Table> tables, @Nullable Holder holder) {
	}

	/**
	 * One task table.
	 *
	 * @param table its name, without the schema
	 * @param live its live rows, as the statistics count them
	 * @param dead its dead rows: deleted or updated, not yet removed by VACUUM
	 * @param sizeBytes its size on disk with its indexes and TOAST
	 * @param lastVacuum when VACUUM (manual or automatic) last finished on it, {@code null} if never
	 */
	record Table(String table, long live, long dead, long sizeBytes, @Nullable Instant lastVacuum) {
	}

	/**
	 * The oldest holder of the xmin horizon.
	 *
	 * @param kind {@code session}, {@code prepared transaction} or {@code replication slot}
	 * @param pid the session's process id (a slot's walsender when it is active)
	 * @param applicationName the session's {@code application_name}
	 * @param clientAddress the session's client address, {@code null} for a Unix socket
	 * @param state the session's state, such as {@code idle in transaction}
	 * @param since when its transaction started (a prepared transaction: when it was prepared), {@code null} if the
	 * database does not say
	 * @param xidAge how many transaction ids old its xmin is
	 * @param name the session's backend type, the prepared transaction's gid or the slot's name
	 * @param xmin the transaction id it holds, as text
	 */
	record Holder(String kind, @Nullable Integer pid, @Nullable String applicationName,
			@Nullable String clientAddress, @Nullable String state, @Nullable Instant since, long xidAge,
			@Nullable String name, @Nullable String xmin) {
	}

}
