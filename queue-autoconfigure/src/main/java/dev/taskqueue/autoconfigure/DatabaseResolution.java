package dev.taskqueue.autoconfigure;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.support.StartupFailure;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Resolves {@code taskqueue.database} at startup: detects the database from the connection, refuses a setting that
 * contradicts it, logs the result once, and decides what of the database TaskQueue uses. What the database cannot
 * do is refused with a message, never ignored: LISTEN/NOTIFY explicitly enabled on CockroachDB stops the
 * application; left at its default there, workers poll, and an INFO line says so. YugabyteDB clusters can enable
 * LISTEN/NOTIFY, so there {@code taskqueue.notify.enabled=true} is taken as the user's word that this one has.
 */
final class DatabaseResolution {

	private static final Log logger = LogFactory.getLog(DatabaseResolution.class);

	/** The CockroachDB session variable that lets one statement change a table twice. */
	static final String MULTIPLE_MODIFICATIONS = "enable_multiple_modifications_of_table";

	private DatabaseResolution() {
	}

	/**
	 * @param configured {@code taskqueue.database}
	 * @param notify {@code taskqueue.notify.enabled} as bound
	 * @param notifySet whether {@code taskqueue.notify.enabled} was set rather than left at its default
	 */
	static DatabaseDialect resolve(DataSource dataSource, Database configured, boolean notify, boolean notifySet) {
		Database.Detected detected = detect(dataSource, configured);
		Database database = (configured != Database.AUTO) ? configured
				: (detected != null) ? detected.database() : Database.POSTGRESQL;
		if (detected != null && configured != Database.AUTO && detected.database() != configured) {
			throw new StartupFailure("taskqueue.database is " + configured.propertyValue() + " but the database "
					+ "is " + detected.database().displayName() + " (SELECT version() says '" + detected.version()
					+ "'): set taskqueue.database=" + detected.database().propertyValue() + " or auto",
					"Set taskqueue.database=" + detected.database().propertyValue() + ", or remove it (auto, the "
							+ "default, detects the database), or point spring.datasource.url at the database you "
							+ "meant.");
		}
		if (detected != null && database == Database.COCKROACHDB) {
			requireMultipleModifications(dataSource);
		}
		boolean notifying = notify && notifyAllowed(database, notifySet);
		logger.info("TaskQueue runs on " + database.displayName()
				+ ((configured == Database.AUTO) ? " (detected" : " (taskqueue.database=" + configured.propertyValue())
				+ ((detected != null) ? ", " + detected.version() + ")" : ")")
				+ (notifying ? "; workers LISTEN for new tasks" : "; workers poll for new tasks")
				+ (database.advisoryLocks() ? "" : "; the migration lock is a row lock"));
		return DatabaseDialect.of(database, notifying);
	}

	private static boolean notifyAllowed(Database database, boolean notifySet) {
		if (database.listenNotify()) {
			return true;
		}
		if (database == Database.YUGABYTEDB && notifySet) {
			return true; // the user says this cluster has LISTEN/NOTIFY
		}
		if (notifySet) {
			throw new StartupFailure("taskqueue.notify.enabled=true, but " + database.displayName() + " has no "
					+ "LISTEN/NOTIFY: remove the property (workers then poll every taskqueue.worker.poll-interval) or "
					+ "set it to false", "Remove taskqueue.notify.enabled, or set it to false.");
		}
		logger.info(database.displayName() + " has no LISTEN/NOTIFY" + ((database == Database.YUGABYTEDB)
				? " unless the cluster enables it (then set taskqueue.notify.enabled=true)" : "")
				+ ": workers poll for new tasks every taskqueue.worker.poll-interval, and enqueues send no NOTIFY");
		return false;
	}

	/**
	 * CockroachDB refuses a statement that changes one table twice (SQLSTATE 0A000) unless its session allows it,
	 * and TaskQueue's completions do that by design: they delete a task and claim or promote the next in one
	 * statement (docs/distributed-sql.md lists them). A session that does not allow it is refused at startup.
	 */
	private static void requireMultipleModifications(DataSource dataSource) {
		String value;
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SHOW " + MULTIPLE_MODIFICATIONS)) {
			value = result.next() ? result.getString(1) : null;
		}
		catch (SQLException ex) {
			logger.warn("Could not read CockroachDB's " + MULTIPLE_MODIFICATIONS + " (" + ex.getMessage() + "); "
					+ "TaskQueue's completions need it on");
			return;
		}
		if (!multipleModificationsAllowed(value)) {
			throw new StartupFailure("CockroachDB's " + MULTIPLE_MODIFICATIONS + " is " + value + ", but "
					+ "TaskQueue's completions change the task table twice in one statement: set the cluster setting "
					+ "sql.multiple_modifications_of_table.enabled = true, or add options=-c" + MULTIPLE_MODIFICATIONS
					+ "=on to the JDBC URL", "Set the cluster setting sql.multiple_modifications_of_table.enabled = "
							+ "true, or add options=-c" + MULTIPLE_MODIFICATIONS + "=on to spring.datasource.url.");
		}
	}

	static boolean multipleModificationsAllowed(@Nullable String value) {
		return value != null && (value.equalsIgnoreCase("on") || value.equalsIgnoreCase("true"));
	}

	private static Database.@Nullable Detected detect(DataSource dataSource, Database configured) {
		try {
			return Database.detect(dataSource);
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Could not ask the database what it is (" + ex.getMessage() + "); TaskQueue assumes "
					+ ((configured != Database.AUTO) ? configured : Database.POSTGRESQL).displayName());
			return null;
		}
	}

}
