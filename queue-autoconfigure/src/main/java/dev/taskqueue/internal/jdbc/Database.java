package dev.taskqueue.internal.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

import javax.sql.DataSource;

/**
 * The database TaskQueue runs on ({@code taskqueue.database}), and what each can do that TaskQueue would otherwise
 * use. {@link #AUTO} is the setting that asks for {@link #detect detection}; the others are databases.
 * <p>
 * The capabilities are those of a default cluster. YugabyteDB can be built or configured with LISTEN/NOTIFY; a user
 * who has that says so with {@code taskqueue.notify.enabled=true} (see {@link DatabaseDialect}).
 */
public enum Database {

	/** Detect the database from the connection ({@code SELECT version()}). */
	AUTO("auto", false, false, false, false),

	/** PostgreSQL: everything TaskQueue uses. */
	POSTGRESQL("PostgreSQL", true, true, true, false),

	/**
	 * CockroachDB: no LISTEN/NOTIFY, no advisory locks, no {@code pg_terminate_backend} (it has
	 * {@code CANCEL SESSION}), transactions SERIALIZABLE by default.
	 */
	COCKROACHDB("CockroachDB", false, false, false, true),

	/** YugabyteDB (YSQL): no LISTEN/NOTIFY by default, no advisory locks by default. */
	YUGABYTEDB("YugabyteDB", false, false, true, false);

	private final String displayName;

	private final boolean listenNotify;

	private final boolean advisoryLocks;

	private final boolean terminateBackend;

	private final boolean serializableByDefault;

	Database(String displayName, boolean listenNotify, boolean advisoryLocks, boolean terminateBackend,
			boolean serializableByDefault) {
		this.displayName = displayName;
		this.listenNotify = listenNotify;
		this.advisoryLocks = advisoryLocks;
		this.terminateBackend = terminateBackend;
		this.serializableByDefault = serializableByDefault;
	}

	/** The database's name as its makers write it. */
	public String displayName() {
		return this.displayName;
	}

	/** Whether {@code LISTEN}, {@code NOTIFY} and {@code pg_notify} are there. */
	public boolean listenNotify() {
		return this.listenNotify;
	}

	/** Whether {@code pg_advisory_lock} and its kin are there. */
	public boolean advisoryLocks() {
		return this.advisoryLocks;
	}

	/** Whether {@code pg_terminate_backend} ends another session of the same role. */
	public boolean terminateBackend() {
		return this.terminateBackend;
	}

	/**
	 * Whether claims lock with {@code FOR UPDATE SKIP LOCKED}: not on CockroachDB, where SKIP LOCKED can skip rows
	 * nobody holds (cockroachdb/cockroach#121917); its claims read unlocked and update only unclaimed rows. Says
	 * what the database's storage driver does, which decides it.
	 */
	public boolean skipLockedClaims() {
		return this != COCKROACHDB;
	}

	/**
	 * How many buckets a queue has when {@code taskqueue.queues.<name>.buckets} is not set: 1 on PostgreSQL (one
	 * index head serves a server's claims well), 16 on CockroachDB and YugabyteDB, where one head is one hot range.
	 */
	public int defaultBuckets() {
		return (this == COCKROACHDB || this == YUGABYTEDB) ? 16 : 1;
	}

	/** Whether transactions are SERIALIZABLE unless asked otherwise. */
	public boolean serializableByDefault() {
		return this.serializableByDefault;
	}

	/** The value of {@code taskqueue.database} that names this database. */
	public String propertyValue() {
		return name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The database whose {@code SELECT version()} says {@code version}: CockroachDB names itself, YugabyteDB reports
	 * a PostgreSQL version with {@code -YB-} in it, anything else is PostgreSQL.
	 */
	public static Database fromVersion(String version) {
		if (version.contains("CockroachDB")) {
			return COCKROACHDB;
		}
		if (version.contains("-YB-")) {
			return YUGABYTEDB;
		}
		return POSTGRESQL;
	}

	/** Asks the database behind {@code dataSource} what it is. */
	public static Detected detect(DataSource dataSource) throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT version()")) {
			result.next();
			String version = result.getString(1);
			return new Detected(fromVersion(version), version);
		}
	}

	/** What detection found: the database and the version text it was told from. */
	public record Detected(Database database, String version) {
	}

}
