package dev.taskqueue.autoconfigure;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import dev.taskqueue.internal.jdbc.Database;

/**
 * Where the migrations of each database are. PostgreSQL's, the subfolders of {@code db/taskqueue} (so that
 * {@code classpath:db/taskqueue}, which Flyway reads with its subfolders, is all of them), are the schema's source of
 * truth; CockroachDB and YugabyteDB have the same versions, tables, columns and index names, which differ only in how
 * keys are sharded (see docs/distributed-sql.md). A script that is the same byte for byte on several databases (and
 * so has the same checksum) is written once:
 * <ul>
 * <li>{@code db/taskqueue/shared}: the same on every database;</li>
 * <li>{@code db/taskqueue/shared-with-cockroachdb}, {@code db/taskqueue/shared-with-yugabytedb}: the same on
 * PostgreSQL and that database;</li>
 * <li>{@code db/taskqueue/postgresql}, {@code db/taskqueue-cockroachdb}, {@code db/taskqueue-yugabytedb}: each
 * database's own.</li>
 * </ul>
 * Each location is named, not its parent, so Flyway records a script by its file name alone, as before they were
 * shared.
 * {@code MigrationLocationsTests} fails until every database has every version once, and while a copy is the same as
 * PostgreSQL's script instead of shared.
 */
enum MigrationLocations {

	/** PostgreSQL, and anything else that answers {@code version()} like it. */
	POSTGRESQL(MigrationLocations.SHARED, TaskQueueSchemaMigrator.LOCATION + "/shared-with-cockroachdb",
			TaskQueueSchemaMigrator.LOCATION + "/shared-with-yugabytedb", TaskQueueSchemaMigrator.LOCATION + "/postgresql"),

	/** CockroachDB: hash-sharded primary keys and claim index. */
	COCKROACHDB(MigrationLocations.SHARED, TaskQueueSchemaMigrator.LOCATION + "/shared-with-cockroachdb",
			TaskQueueSchemaMigrator.LOCATION + "-cockroachdb"),

	/** YugabyteDB (YSQL): range-sharded indexes where statements scan in order. */
	YUGABYTEDB(MigrationLocations.SHARED, TaskQueueSchemaMigrator.LOCATION + "/shared-with-yugabytedb",
			TaskQueueSchemaMigrator.LOCATION + "-yugabytedb");

	/** The migrations that are the same on every database, under PostgreSQL's location. */
	static final String SHARED = TaskQueueSchemaMigrator.LOCATION + "/shared";

	private final String[] locations;

	MigrationLocations(String... locations) {
		this.locations = locations;
	}

	/** The Flyway locations of this database's migrations, each version in exactly one of them. */
	String[] locations() {
		return this.locations.clone();
	}

	/** The migrations of the database that answered {@code version()} with {@code version} ({@link Database}). */
	static MigrationLocations forVersion(String version) {
		return switch (Database.fromVersion(version)) {
			case COCKROACHDB -> COCKROACHDB;
			case YUGABYTEDB -> YUGABYTEDB;
			default -> POSTGRESQL;
		};
	}

	/** The database {@code connection} is connected to, from its {@code version()}. */
	static MigrationLocations of(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT version()")) {
			result.next();
			return forVersion(result.getString(1));
		}
	}

}
