package dev.taskqueue.distributed;

import org.testcontainers.containers.YugabyteDBYSQLContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The core scenarios on a single-node YugabyteDB (YSQL), through the stock PostgreSQL driver rather than the
 * container's default YugabyteDB driver URL; skipped where there is no Docker engine. See docs/distributed-sql.md for
 * what this proves and how to run it.
 */
@Testcontainers(disabledWithoutDocker = true)
class YugabyteDbIntegrationTests extends DistributedSqlScenarios {

	private static final int YSQL_PORT = 5433;

	@Container
	static YugabyteDBYSQLContainer yugabyte = new YugabyteDBYSQLContainer("yugabytedb/yugabyte:2025.2.1.0-b141");

	@Override
	protected String createDatabase() {
		String database = createDatabase(url(yugabyte.getDatabaseName()), username(), password());
		return url(database);
	}

	private static String url(String database) {
		return "jdbc:postgresql://" + yugabyte.getHost() + ":" + yugabyte.getMappedPort(YSQL_PORT) + "/" + database;
	}

	@Override
	protected String username() {
		return yugabyte.getUsername();
	}

	@Override
	protected String password() {
		return yugabyte.getPassword();
	}

}
