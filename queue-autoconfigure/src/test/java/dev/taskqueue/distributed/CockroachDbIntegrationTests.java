package dev.taskqueue.distributed;

import org.testcontainers.cockroachdb.CockroachContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The core scenarios on a single-node CockroachDB; skipped where there is no Docker engine. See
 * docs/distributed-sql.md for what this proves and how to run it.
 */
@Testcontainers(disabledWithoutDocker = true)
class CockroachDbIntegrationTests extends DistributedSqlScenarios {

	private static final int SQL_PORT = 26257;

	@Container
	static CockroachContainer cockroach = new CockroachContainer("cockroachdb/cockroach:v25.2.4");

	@Override
	protected String createDatabase() {
		String database = createDatabase(url(cockroach.getDatabaseName()), username(), password());
		return url(database);
	}

	private static String url(String database) {
		return "jdbc:postgresql://" + cockroach.getHost() + ":" + cockroach.getMappedPort(SQL_PORT) + "/" + database
				+ "?sslmode=disable";
	}

	@Override
	protected String username() {
		return cockroach.getUsername();
	}

	@Override
	protected String password() {
		return cockroach.getPassword();
	}

}
