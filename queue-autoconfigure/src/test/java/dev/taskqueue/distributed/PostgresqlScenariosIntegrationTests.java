package dev.taskqueue.distributed;

import dev.taskqueue.test.TestDatabase;
import org.jspecify.annotations.Nullable;

/**
 * The scenarios of the CockroachDB and YugabyteDB tests on the PostgreSQL the other tests use: the control that shows
 * the scenarios themselves are right, and the only run they get where there is no Docker engine.
 */
class PostgresqlScenariosIntegrationTests extends DistributedSqlScenarios {

	@Override
	protected String createDatabase() {
		return TestDatabase.createDatabase();
	}

	@Override
	protected @Nullable String username() {
		return null; // in the URL
	}

	@Override
	protected @Nullable String password() {
		return null;
	}

}
