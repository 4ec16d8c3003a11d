package dev.taskqueue.autoconfigure;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import dev.taskqueue.jdbc.Database;

/**
 * Where the migrations of each database are. PostgreSQL's, in {@code db/taskqueue}, are the schema's source of
 * truth; CockroachDB and YugabyteDB have copies with the same versions, tables, columns and index names, which differ
 * only in how keys are sharded (see docs/distributed-sql.md). A migration added to {@code db/taskqueue} needs its
 * copy in each of the others: {@code MigrationLocationsTests} fails until it has one.
 */
enum MigrationLocations {

	/** PostgreSQL, and anything else that answers {@code version()} like it. */
	POSTGRESQL(TaskQueueSchemaMigrator.LOCATION),

	/** CockroachDB: hash-sharded primary keys and claim index. */
	COCKROACHDB(TaskQueueSchemaMigrator.LOCATION + "-cockroachdb"),

	/** YugabyteDB (YSQL): range-sharded indexes where statements scan in order. */
	YUGABYTEDB(TaskQueueSchemaMigrator.LOCATION + "-yugabytedb");

	private final String location;

	MigrationLocations(String location) {
		this.location = location;
	}

	/** The Flyway location of this database's migrations. */
	String location() {
		return this.location;
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
