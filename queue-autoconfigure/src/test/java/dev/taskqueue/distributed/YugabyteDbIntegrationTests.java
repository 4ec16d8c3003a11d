package dev.taskqueue.distributed;

import org.testcontainers.containers.YugabyteDBYSQLContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The core scenarios on a single-node YugabyteDB (YSQL), through the stock PostgreSQL driver; skipped where there is
 * no Docker engine. See docs/distributed-sql.md for what this proves and how to run it.
 */
@Testcontainers(disabledWithoutDocker = true)
class YugabyteDbIntegrationTests extends DistributedSqlScenarios {

	private static final int YSQL_PORT = 5433;

	@Container
	static YugabyteDBYSQLContainer yugabyte = new PostgresqlDriverContainer("yugabytedb/yugabyte:2025.2.1.0-b141");

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

	/**
	 * The container as the PostgreSQL driver reaches it. Testcontainers' own URL and driver are YugabyteDB's
	 * ({@code jdbc:yugabytedb:}, {@code com.yugabyte.Driver}), which the application does not use and the tests do
	 * not depend on; its readiness check connects with these two methods, so without them it would wait for a driver
	 * that is not there until its timeout.
	 */
	static final class PostgresqlDriverContainer extends YugabyteDBYSQLContainer {

		PostgresqlDriverContainer(String image) {
			super(image);
		}

		@Override
		public String getDriverClassName() {
			return "org.postgresql.Driver";
		}

		@Override
		public String getJdbcUrl() {
			return "jdbc:postgresql://" + getHost() + ":" + getMappedPort(YSQL_PORT) + "/" + getDatabaseName();
		}

	}

}
